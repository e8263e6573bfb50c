package tools

import (
	"fmt"
	"math"
	"strconv"
)

// How numbers and sizes read in results and previews, for every tool.

// FormatNumber prints integers without a fraction and other values with the
// fewest digits that round-trip.
func FormatNumber(v float64) string {
	if v == 0 {
		return "0" // also for -0
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// FormatSize renders a byte count as users read it: 512 B, 2.3 KB, 4.0 MB.
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
	}
}
