package presence

import "time"

// Observer takes one measurement, in seconds. A prometheus.Histogram
// satisfies it, so internal/metrics hands its histograms straight in;
// the packages that measure know nothing of Prometheus.
type Observer interface {
	Observe(seconds float64)
}

// ObserveSince tells o the time elapsed since start; nothing when o is nil.
// Measuring costs a clock read and the observer's own call (a histogram's
// is a few atomic adds).
func ObserveSince(o Observer, start time.Time) {
	if o != nil {
		o.Observe(time.Since(start).Seconds())
	}
}
