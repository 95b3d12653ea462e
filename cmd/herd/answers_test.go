package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// answerBlock is a fenced block of an answer page: its info string and
// lines, and the prose before it.
type answerBlock struct {
	info  string
	lines []string
}

// answerPage splits a page into its fenced blocks and its prose.
func answerPage(text string) (blocks []answerBlock, prose string) {
	var cur *answerBlock
	var p strings.Builder
	for _, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &answerBlock{info: strings.TrimSpace(strings.TrimPrefix(l, "```"))}
		case cur != nil && strings.TrimSpace(l) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		default:
			p.WriteString(l + "\n")
		}
	}
	return blocks, p.String()
}

var spaces = regexp.MustCompile(`\s+`)

func squeeze(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

var bold = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)

// TestAnswers runs the commands of every page of docs/answers through the
// CLI: each must succeed; every line of a text block must be in what the
// commands of the sh block before it printed (standard output and error,
// spaces squeezed), every line of a "text absent" block must not be; and
// every number the prose puts in bold must be one the page's commands
// printed.
func TestAnswers(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "answers", "*.md"))
	if err != nil || len(pages) < 3 {
		t.Fatalf("%d answer pages (%v), want at least 3", len(pages), err)
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, page := range pages {
		page := strings.TrimPrefix(page, filepath.Join("..", "..")+string(filepath.Separator))
		t.Run(filepath.Base(page), func(t *testing.T) {
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			blocks, prose := answerPage(string(b))
			var all, last strings.Builder
			commands := 0
			for _, blk := range blocks {
				switch blk.info {
				case "sh":
					last.Reset()
					for _, l := range blk.lines {
						if !strings.HasPrefix(l, "herd ") {
							t.Fatalf("%q: an sh block holds herd commands only", l)
						}
						out, errs, code := herd(t, strings.Fields(l)[1:]...)
						if code != 0 {
							t.Fatalf("%s: exit %d\n%s", l, code, errs)
						}
						commands++
						last.WriteString(squeeze(out) + " " + squeeze(errs) + "\n")
					}
					all.WriteString(last.String())
				case "text", "text absent":
					for _, l := range blk.lines {
						if l = squeeze(l); l == "" {
							continue
						}
						if found := strings.Contains(last.String(), l); found != (blk.info == "text") {
							t.Errorf("%q: found %v after the commands before it", l, found)
						}
					}
				}
			}
			if commands == 0 {
				t.Fatal("no command")
			}
			for _, m := range bold.FindAllStringSubmatch(prose, -1) {
				if strings.ContainsAny(m[1], "0123456789") && !strings.Contains(all.String(), squeeze(m[1])) {
					t.Errorf("the prose's %q is not printed by the page's commands", m[1])
				}
			}
		})
	}
}
