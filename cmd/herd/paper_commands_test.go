package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPaperCommandsRunAsPrinted: every herd command the paper prints
// (\cmd, \texttt or \verb in paper/*.tex and paper/generated) is read as
// LaTeX sets it — a bare -- is an en dash there, -{}- two hyphens, \V{key}
// the generated number — and run through the built binary with --help: the
// command path must exist and every flag must parse, so a command that
// fails when copied from the PDF fails here. A flag alone in \cmd
// (\cmd{--timeout}) must not hold a bare -- either.
func TestPaperCommandsRunAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cmds, err := paperCommands("../../paper")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 5 {
		t.Fatalf("found only %d herd commands in the paper: is the extraction broken?", len(cmds))
	}
	bin := filepath.Join(t.TempDir(), "herd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("%d commands and flags printed in the paper", len(cmds))
	for _, c := range cmds {
		if msg := checkPrintedCommand(bin, c.text); msg != "" {
			t.Errorf("%s: the paper prints %q (LaTeX %q): %s", c.where, c.text, c.latex, msg)
		}
	}
}

// printedCommand is a herd command as the PDF shows it, with where it is
// and its LaTeX source.
type printedCommand struct{ where, latex, text string }

// checkPrintedCommand runs a printed command with --help and says what is
// wrong with it ("" when nothing).
func checkPrintedCommand(bin, text string) string {
	words := strings.Fields(text)
	if words[0] != "herd" { // a flag alone: it only has to be typeset right
		if strings.ContainsAny(text, "–—") {
			return "a dash where the flag needs two hyphens (write -{}- in LaTeX)"
		}
		return ""
	}
	out, err := exec.Command(bin, append(words[1:], "--help")...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v\n%s", err, out)
	}
	// cobra answers --help for an unknown subcommand with its parent's
	// help: the usage line must name the whole command path.
	var path []string
	for _, w := range words {
		if strings.HasPrefix(w, "-") {
			break
		}
		path = append(path, w)
	}
	if want := "Usage:\n  " + strings.Join(path, " ") + " "; !strings.Contains(string(out), want) {
		return fmt.Sprintf("no such command %q: --help printed\n%s", strings.Join(path, " "), out)
	}
	return ""
}

var (
	// commandMacro opens a typewriter argument: \cmd{, \texttt{.
	commandMacro = regexp.MustCompile(`\\(cmd|texttt)\{`)
	// herddef is one generated number: \herddef{key}{value}.
	herddef = regexp.MustCompile(`\\herddef\{([^}]*)\}\{(.*)\}`)
	// numberRef is \V{key} in the text.
	numberRef = regexp.MustCompile(`\\V\{([^}]*)\}`)
)

// paperCommands reads every command the paper under dir prints: the
// typewriter arguments that start with herd or a flag, as LaTeX sets them.
func paperCommands(dir string) ([]printedCommand, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tex"))
	if err != nil {
		return nil, err
	}
	gen, err := filepath.Glob(filepath.Join(dir, "generated", "*.tex"))
	if err != nil {
		return nil, err
	}
	files = append(files, gen...)
	numbers := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "generated", "numbers.tex")); err == nil {
		for _, m := range herddef.FindAllStringSubmatch(string(b), -1) {
			numbers[m[1]] = m[2]
		}
	}
	var cmds []printedCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(b), "\n") {
			line = stripComment(line)
			where := fmt.Sprintf("%s:%d", filepath.Base(f), i+1)
			var args []string
			for _, loc := range commandMacro.FindAllStringIndex(line, -1) {
				if arg, ok := braced(line[loc[1]-1:]); ok {
					args = append(args, arg)
				}
			}
			args = append(args, verbs(line)...)
			for _, arg := range args {
				text, verb := strings.CutSuffix(arg, "\x00verb")
				if !verb {
					text = typeset(text, numbers)
				}
				if strings.HasPrefix(text, "herd ") || strings.HasPrefix(text, "-") || strings.HasPrefix(text, "–") {
					cmds = append(cmds, printedCommand{where, arg, text})
				}
			}
		}
	}
	return cmds, nil
}

// verbs are the arguments of \verb|…| (any delimiter) on a line, each
// marked as verbatim.
func verbs(line string) []string {
	var out []string
	for {
		i := strings.Index(line, `\verb`)
		if i < 0 || i+6 >= len(line) {
			return out
		}
		delim, rest := line[i+5], line[i+6:]
		j := strings.IndexByte(rest, delim)
		if j < 0 {
			return out
		}
		out = append(out, rest[:j]+"\x00verb")
		line = rest[j+1:]
	}
}

// stripComment drops a LaTeX comment (an unescaped %) from a line.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if line[i] == '%' {
			return line[:i]
		}
	}
	return line
}

// braced is the argument of s, which starts with {, up to its matching }.
func braced(s string) (string, bool) {
	depth := 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

// typeset is a typewriter argument as the PDF shows it: ---, -- are
// dashes, -{}- two hyphens, \V{key} the generated number, escapes their
// characters.
func typeset(s string, numbers map[string]string) string {
	s = numberRef.ReplaceAllStringFunc(s, func(m string) string {
		key := numberRef.FindStringSubmatch(m)[1]
		if v, ok := numbers[key]; ok {
			return v
		}
		return "<undefined " + key + ">"
	})
	s = strings.NewReplacer("---", "—", "--", "–").Replace(s)
	s = strings.NewReplacer(`{}`, "", `\_`, "_", `\%`, "%", `\&`, "&", `\#`, "#", `\$`, "$",
		`\textbackslash`, `\`, "~", " ", `\,`, "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}
