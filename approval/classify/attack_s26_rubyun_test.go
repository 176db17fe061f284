package classify

import "testing"

// TestAttackS26RubyUnCommands: ruby -run (ruby -r un) loads un.rb, whose
// methods are the file commands of a shell: ruby -run -e rm -- -rf ~ is
// rm -rf ~ (Blocked), ruby -run -e cp -- x ~/.bashrc is cp x ~/.bashrc
// (Dangerous), and ruby -run -e httpd serves files over the network, as
// python3 -m http.server and php -S do (Dangerous). Seen failing first:
// each was Warning ("ruby runs ruby code", "php runs php code").
func TestAttackS26RubyUnCommands(t *testing.T) {
	attackAtLeast(t, Blocked, []string{
		`ruby -run -e rm -- -rf ~`,
		`ruby -r un -e rm -- -rf ~`,
		`ruby -run -e rm -- -r -f /`,
	})
	attackAtLeast(t, Dangerous, []string{
		`ruby -run -e cp -- x ~/.bashrc`,
		`ruby -run -e mv -- x .git/hooks/pre-commit`,
		`ruby -run -e install -- x ~/.local/bin/x`,
		`ruby -run -e httpd . -p 8000`,
		`ruby -run -e httpd -- --bind-address=0.0.0.0 ~`,
		`php -S 0.0.0.0:8000`,
		`php -S localhost:8000 -t ~`,
	})
	attackAtLeast(t, Warning, []string{`ruby -run -e help`, `ruby -e 'puts 1'`, `php -v`})
}

// TestAttackS26MoreOutputWrites: ed FILE writes FILE with its w command;
// 7z -oDIR extracts into DIR; docker cp and kubectl cp write their last
// operand when it is local. Each is judged as a write there (Dangerous
// at a start-up file or outside the working directory). Seen failing
// first: each was Warning.
func TestAttackS26MoreOutputWrites(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`ed -s ~/.bashrc <<< $'a\nx\n.\nw'`,
		`printf 'a\nx\n.\nw\n' | ed ~/.profile`,
		`7z x a.7z -o$HOME`,
		`7z x a.7z -o/etc`,
		`7z x a.7z -o.git/hooks`,
		`docker cp c:/x ~/.bashrc`,
		`kubectl cp pod:/x ~/.bashrc`,
	})
	attackAtLeast(t, Warning, []string{`ed -s notes.txt <<< ',p'`, `7z x a.7z -oout`, `docker cp c:/x .`})
}
