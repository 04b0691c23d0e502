package tributary

import (
	"encoding/csv"
	"io"
	"strings"
	"time"
)

// ExportedShare is one of a user's shares as an export writes it: what the importer reads
// back (ImportRecord) when the file is imported on another Tributary.
type ExportedShare struct {
	URL, Title, Text string
	Tags             []string
	SharedAt         time.Time
}

// SharesCSV writes shares in exactly the importer's CSV format (ParseImport with FormatCSV).
type SharesCSV struct {
	w *csv.Writer
}

// NewSharesCSV starts a CSV of shares with the importer's header row.
func NewSharesCSV(w io.Writer) (*SharesCSV, error) {
	c := &SharesCSV{w: csv.NewWriter(w)}
	return c, c.w.Write(importColumns)
}

// Write adds one share by handle. A share without a link (a direct message) has no place in
// the format, which wants a url: the caller keeps those elsewhere.
func (c *SharesCSV) Write(handle string, s ExportedShare) error {
	row := make([]string, len(importColumns))
	for i, col := range importColumns {
		switch col {
		case colURL:
			row[i] = s.URL
		case colTitle:
			row[i] = s.Title
		case colHandle:
			row[i] = handle
		case colSharedAt:
			row[i] = s.SharedAt.UTC().Format(time.RFC3339Nano)
		case colText:
			row[i] = s.Text
		case colTags:
			row[i] = strings.Join(s.Tags, " ")
		}
	}
	return c.w.Write(row)
}

// Flush writes what is buffered and reports any error of the writes so far.
func (c *SharesCSV) Flush() error {
	c.w.Flush()
	return c.w.Error()
}
