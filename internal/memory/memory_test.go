package memory

import "testing"

func TestParseReadsUnitsAndRefusesOutOfRange(t *testing.T) {
	for text, want := range map[string]int64{"": 0, "512MiB": 512 << 20, "8GiB": 8 << 30, "2GB": 2e9, "1048576": 1 << 20, "1.5 GiB": 3 << 29} {
		if got, err := Parse(text); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", text, got, err, want)
		}
	}
	for _, text := range []string{"1KiB", "1048575", "2PiB", "-1GiB", "NaN", "eightGiB", "8 gib"} {
		if got, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", text, got)
		}
	}
}

func TestTextRoundsToTheUnitRead(t *testing.T) {
	for b, want := range map[int64]string{Budget: "4.0 GiB", 3 << 19: "1.5 MiB", 1000: "1 KiB"} {
		if got := Text(b); got != want {
			t.Errorf("Text(%d) = %q, want %q", b, got, want)
		}
	}
}
