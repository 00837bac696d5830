// Package report turns measurements into statistics (median, spread, Mann-Whitney U, crossover, regressions)
// and renders them as text, Markdown, CSV, JSON, HTML with SVG charts, and JUnit XML. It never touches the network
// or the database: it reads plain data types.
package report
