package plots

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/outfile"
)

// WriteAll draws figs and writes each one's files (Formats) into dir. The
// figures are computed several at once (analysis.EachPoint, as many as
// cfg.Workers allows), the costliest first (Schedule), so that while one
// figure folds, renders or runs a serial stretch the other cores work on
// the next. Each figure's files depend on its seed and scale alone, so
// they are the same bytes whatever the order; a study two figures share is
// played once through the context's cache. cite, when not empty, ends each
// figure's small print. progress gets the share of the work done (0 to
// the number of figures), wrote each figure as its files are written;
// both are called one at a time.
func WriteAll(ctx context.Context, figs []Figure, cfg Config, dir, cite string, progress func(float64), wrote func(name string, took time.Duration)) error {
	figs = Schedule(figs)
	var mu sync.Mutex // guards share and the calls
	share := make([]float64, len(figs))
	report := func() {
		sum := 0.0
		for _, s := range share {
			sum += s
		}
		progress(sum)
	}
	return analysis.EachPoint(ctx, len(figs), cfg.Workers, func(ctx context.Context, i int) error {
		f, cfg, start := figs[i], cfg, time.Now()
		cfg.Progress = func(done, total int) {
			if total <= 0 {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			share[i] = min(1, float64(done)/float64(total))
			report()
		}
		if err := writeFigure(ctx, f, cfg, dir, cite); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		share[i] = 1
		wrote(f.Name, time.Since(start))
		report()
		return nil
	}, nil)
}

// writeFigure computes f, renders it in every format and writes its files
// into dir. Its CPU profile samples (--cpuprofile) are labelled with the
// figure and the stage: compute, render-FORMAT or write.
func writeFigure(ctx context.Context, f Figure, cfg Config, dir, cite string) error {
	var d *Drawing
	var err error
	pprof.Do(ctx, pprof.Labels("figure", f.Name, "stage", "compute"), func(ctx context.Context) {
		d, err = f.Draw(ctx, cfg)
	})
	if err != nil {
		return err
	}
	d.Cite = cite
	for _, format := range Formats {
		if err := ctx.Err(); err != nil {
			return err
		}
		var b []byte
		pprof.Do(ctx, pprof.Labels("figure", f.Name, "stage", "render-"+format), func(context.Context) {
			b, err = d.Render(format)
		})
		if err != nil {
			return err
		}
		pprof.Do(ctx, pprof.Labels("figure", f.Name, "stage", "write"), func(context.Context) {
			err = outfile.Write(filepath.Join(dir, f.Name+"."+format), b)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
