package input

import (
	"fmt"
	"time"
)

// Progress of a plan. A plan's totals are known before any row is read:
// its splits' files, their bytes and the row counts the manifests record.
// How far the read is counts the bytes of the splits read to their end plus
// the current split's share of its rows; percent, rate and ETA follow.
// They are logged at INFO every progressEvery once a plan has run that long
// (a first full read of a big table), and kept as gauges.

// progressMetrics are the gauges of the current plan's progress.
type progressMetrics struct {
	percent, eta                tableGauge
	files, filesDone            tableGauge
	bytes, bytesDone, rowsTotal tableGauge
}

// newProgressMetrics registers the gauges with gauge, the input's
// constructor of table-labelled gauges.
func newProgressMetrics(gauge func(name string) tableGauge) progressMetrics {
	return progressMetrics{
		percent:   gauge("paimon_plan_progress_percent"),
		eta:       gauge("paimon_plan_eta_seconds"),
		files:     gauge("paimon_plan_files"),
		filesDone: gauge("paimon_plan_files_done"),
		bytes:     gauge("paimon_plan_bytes"),
		bytesDone: gauge("paimon_plan_bytes_done"),
		rowsTotal: gauge("paimon_plan_rows"),
	}
}

// progressMetricsEvery bounds how often the gauges are recomputed.
const progressMetricsEvery = time.Second

// startProgress resets the progress to a new plan of these splits.
func (p *paimonInput) startProgress(splits []planSplit) {
	p.planStart, p.lastProgress, p.lastMetrics = time.Now(), time.Time{}, time.Time{}
	p.planFiles, p.planFilesDone, p.planRows = 0, 0, 0
	p.planBytes, p.planBytesDone, p.planRowsTotal = 0, 0, 0
	for _, sp := range splits {
		p.planFiles += sp.FileCount()
		p.planBytes += sp.Bytes()
		p.planRowsTotal += sp.RowCount()
	}
	m := p.m.progress
	m.files.Set(int64(p.planFiles))
	m.bytes.Set(p.planBytes)
	m.rowsTotal.Set(p.planRowsTotal)
	m.filesDone.Set(0)
	m.bytesDone.Set(0)
	m.percent.Set(0)
	m.eta.Set(0)
}

// progress is a snapshot of how far the current plan is.
type progress struct {
	fraction float64       // 0..1 of the plan's bytes (files when sizes are unknown)
	rowRate  float64       // delivered rows per second
	eta      time.Duration // -1 when unknown
	elapsed  time.Duration
}

func (p *paimonInput) progressNow(now time.Time) progress {
	pr := progress{elapsed: now.Sub(p.planStart), eta: -1}
	done := float64(p.planBytesDone)
	if !p.cur.planDone() {
		if sp := p.cur.split(); sp.RowCount() > 0 {
			done += float64(sp.Bytes()) * min(1, float64(p.cur.splitDone)/float64(sp.RowCount()))
		}
	}
	switch {
	case p.planBytes > 0:
		pr.fraction = min(1, done/float64(p.planBytes))
	case p.planFiles > 0:
		pr.fraction = float64(p.planFilesDone) / float64(p.planFiles)
	}
	if s := pr.elapsed.Seconds(); s > 0 {
		pr.rowRate = float64(p.planRows) / s
		if pr.fraction > 0 {
			pr.eta = time.Duration(float64(pr.elapsed) * (1 - pr.fraction) / pr.fraction)
		}
	}
	return pr
}

// logProgress updates the gauges (at most every second) and logs how far
// the current plan is, at most every progressEvery and only once the plan
// has run that long: short plans stay quiet.
func (p *paimonInput) logProgress() {
	now := time.Now()
	metrics := now.Sub(p.lastMetrics) >= progressMetricsEvery
	logLine := now.Sub(p.planStart) >= p.progressEvery && now.Sub(p.lastProgress) >= p.progressEvery
	if !metrics && !logLine {
		return
	}
	pr := p.progressNow(now)
	if metrics {
		p.lastMetrics = now
		p.setProgressMetrics(pr)
	}
	if !logLine {
		return
	}
	p.lastProgress = now
	eta := "unknown"
	if pr.eta >= 0 {
		eta = pr.eta.Round(time.Second).String()
	}
	p.log.Infof("paimon input: reading snapshot %d of %s: %.1f%% (%d/%d files, %s of %s; %d rows in the manifests), %d rows so far, %.0f rows/s, ETA %s, %s elapsed",
		p.cur.plan.SnapshotID, p.cfg.FullName(), 100*pr.fraction, p.planFilesDone, p.planFiles,
		byteSize(int64(pr.fraction*float64(p.planBytes))), byteSize(p.planBytes), p.planRowsTotal,
		p.planRows, pr.rowRate, eta, pr.elapsed.Round(time.Second))
}

func (p *paimonInput) setProgressMetrics(pr progress) {
	m := p.m.progress
	m.percent.Set(int64(100 * pr.fraction))
	m.filesDone.Set(int64(p.planFilesDone))
	m.bytesDone.Set(int64(pr.fraction * float64(p.planBytes)))
	if pr.eta >= 0 {
		m.eta.Set(int64(pr.eta.Round(time.Second) / time.Second))
	}
}

// endProgress closes the plan's progress: gauges at 100 %, and a completion
// line when a progress line was logged.
func (p *paimonInput) endProgress() {
	p.planBytesDone = p.planBytes
	m := p.m.progress
	m.percent.Set(100)
	m.eta.Set(0)
	m.filesDone.Set(int64(p.planFiles))
	m.bytesDone.Set(p.planBytes)
	if p.lastProgress.IsZero() {
		return
	}
	d := time.Since(p.planStart)
	rate := 0.0
	if d > 0 {
		rate = float64(p.planRows) / d.Seconds()
	}
	p.log.Infof("paimon input: snapshot %d of %s read: %d/%d files, %d rows in %s (%.0f rows/s)", p.cur.plan.SnapshotID, p.cfg.FullName(), p.planFiles, p.planFiles, p.planRows, d.Round(time.Millisecond), rate)
}

// byteSize spells a byte count for people (KiB, MiB, GiB).
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
