// Package textcut shortens text to a byte budget without splitting a
// UTF-8 character: the one rule every place that cuts text for a person, a
// model or a record uses.
//
// A cut never lands inside a valid character. Bytes that are not UTF-8
// are cut anywhere (each reads as U+FFFD), so a run of stray continuation
// bytes cannot make a cut back up to nothing.
package textcut

import (
	"strconv"
	"unicode/utf8"
)

// Head returns the longest prefix of s that is at most n bytes long and
// does not end inside a valid UTF-8 character: s itself when it is no
// longer than n, "" when n <= 0.
func Head[T ~string | ~[]byte](s T, n int) T {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return s[:0]
	}
	if i, size := charAround(s, n); i+size > n {
		n = i
	}
	return s[:n]
}

// Clip returns s when it is at most n bytes long, else Head(s, n)
// followed by "…[K bytes cut]", K the bytes left out: how a name or an id
// that a model or a client chose is held to a bound in a record.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := Head(s, n)
	return head + "…[" + strconv.Itoa(len(s)-len(head)) + " bytes cut]"
}

// HeadTail returns s when it is at most n bytes long, else its first three
// quarters and last quarter around "\n[... K bytes cut ...]\n", K the
// bytes left out, within n bytes with the marker: how a long output or
// message is held to a cap, its end (often the error) kept. With no room
// for any of s, it is the marker alone, "[K bytes cut: over the output cap]".
func HeadTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	room := n - len("\n[...  bytes cut ...]\n") - len(strconv.Itoa(len(s))) // what the marker says is no longer
	if room <= 0 {
		return "[" + strconv.Itoa(len(s)) + " bytes cut: over the output cap]"
	}
	head, tail := Head(s, room*3/4), Tail(s, room/4)
	return head + "\n[... " + strconv.Itoa(len(s)-len(head)-len(tail)) + " bytes cut ...]\n" + tail
}

// Tail returns the longest suffix of s that is at most n bytes long and
// does not begin inside a valid UTF-8 character: s itself when it is no
// longer than n, "" when n <= 0.
func Tail[T ~string | ~[]byte](s T, n int) T {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return s[len(s):]
	}
	start := len(s) - n
	if i, size := charAround(s, start); i+size > start {
		start = i + size
	}
	return s[start:]
}

// charAround returns where the valid character that holds the byte at
// k-1 (0 < k <= len(s)) starts, and its size; start+size is at most k
// when that byte is in none.
func charAround[T ~string | ~[]byte](s T, k int) (start, size int) {
	for i := k - 1; i >= max(0, k-utf8.UTFMax); i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && n <= 1 {
			return i, 0
		}
		return i, n
	}
	return k, 0
}
