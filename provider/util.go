package provider

import (
	"math"
	"strconv"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

// seconds is a wait as people read it: "12 s", "0.5 s".
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 10 || s == math.Trunc(s) {
		return strconv.Itoa(int(math.Round(s))) + " s"
	}
	return strconv.FormatFloat(s, 'f', 1, 64) + " s"
}
