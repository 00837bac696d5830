package main

import (
	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/report"
)

// metricFlag is --metric of fleet regress and fleet changes: what a series is judged by.
func metricFlag() cli.Flag {
	return &cli.StringFlag{Name: "metric", Value: report.MetricThroughput,
		Usage: "judge series by `M`: throughput (higher is better) or energy (µJ/B above idle, lower is better: a rise is a regression)"}
}

// parseMetric is the --metric given, refused with exit 2 when it names neither.
func parseMetric(c *cli.Context) (string, error) {
	m, err := report.CheckMetric(c.String("metric"))
	if err != nil {
		return "", usageErr("--metric: %w", err)
	}
	return m, nil
}

// worseningWord is what --fail-on-drop found, in the metric's terms.
func worseningWord(metric string) string {
	if metric == report.MetricEnergy {
		return "rise(s) in µJ/B"
	}
	return "drop(s)"
}
