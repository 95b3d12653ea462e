// Package progress draws a progress bar for long runs on a terminal, and
// nothing anywhere else or for runs shorter than a second.
package progress

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Bar reports work done on a terminal and the run has
// lasted more than a second; otherwise it stays silent.
type Bar struct {
	w       io.Writer
	desc    string
	total   int
	started time.Time
	bar     *progressbar.ProgressBar
}

// New is a bar of total units described by desc, drawn on w when tty says
// w is a terminal; otherwise it is nil, and every method of a nil Bar does
// nothing.
func New(w io.Writer, tty bool, desc string, total int) *Bar {
	if !tty {
		return nil
	}
	return &Bar{w: w, desc: desc, total: total, started: time.Now()}
}

// Set records that done of total units are finished.
func (p *Bar) Set(done int) {
	if p == nil {
		return
	}
	if p.bar == nil {
		if time.Since(p.started) < time.Second {
			return
		}
		p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	_ = p.bar.Set(done)
}

// Of records that done of total units are finished, total being known
// only as the work goes.
func (p *Bar) Of(done, total int) {
	if p == nil {
		return
	}
	if total != p.total {
		p.total = total
		if p.bar != nil {
			p.bar.ChangeMax(total)
		}
	}
	p.Set(done)
}

// Describe replaces the bar's description, e.g. with a rate.
func (p *Bar) Describe(desc string) {
	if p != nil {
		p.desc = desc
		if p.bar != nil {
			p.bar.Describe(desc)
		}
	}
}

func (p *Bar) Finish() {
	if p != nil && p.bar != nil {
		_ = p.bar.Finish()
	}
}

// Clear takes the bar off the terminal, so that a line can be printed
// where it was (it is drawn again at its next update).
func (p *Bar) Clear() {
	if p != nil && p.bar != nil {
		_ = p.bar.Clear()
	}
}
