package plots

import (
	"context"
	"errors"
	"os"
	"testing"
)

// A figure whose computation ends as the run is cancelled is not rendered
// (each format takes up to seconds) and leaves no file.
func TestWriteFigureStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := Figure{Name: "cancelled", Draw: func(context.Context, Config) (*Drawing, error) {
		cancel()
		return &Drawing{Title: "cancelled", Rows: []Row{{}}}, nil
	}}
	dir := t.TempDir()
	if err := writeFigure(ctx, f, Config{}, dir, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("%d files written, want none", len(files))
	}
}
