package tributary

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ImportFormat is the file format of an import: CSV with a header row, or JSON Lines.
type ImportFormat string

// The import formats.
const (
	FormatCSV   ImportFormat = "csv"
	FormatJSONL ImportFormat = "jsonl"
)

// ParseImportFormat parses a --format value; "ndjson" is another name for JSON Lines.
func ParseImportFormat(s string) (ImportFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "csv":
		return FormatCSV, nil
	case "jsonl", "ndjson":
		return FormatJSONL, nil
	}
	return "", Errorf(EInvalid, "Unknown import format %q (want csv or jsonl).", s)
}

// ImportFormatOf picks the format of an import file by its extension.
func ImportFormatOf(path string) (ImportFormat, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return FormatCSV, nil
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	}
	return "", Errorf(EInvalid, "Cannot tell the format of %q from its extension (.csv, .jsonl or .ndjson); say --format.", path)
}

// ImportFutureAllowance is how far in the future a shared_at may lie: clocks drift,
// but a share dated next week is a mistake.
const ImportFutureAllowance = 10 * time.Minute

// ImportRecord is one valid share read from an import file.
type ImportRecord struct {
	Line   int    // where the record starts in the file, from 1
	Handle string // the author, who may not exist yet
	Post   Prepared
}

// LineError says why one line of an import file was rejected.
type LineError struct {
	Line   int
	Reason string // plain and safe to show: "url is required"
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// The columns (CSV) or keys (JSONL) of an import file.
const (
	colURL      = "url"
	colTitle    = "title"
	colHandle   = "handle"
	colSharedAt = "shared_at"
	colText     = "text"
	colTags     = "tags"
)

var (
	importColumns   = []string{colURL, colTitle, colHandle, colSharedAt, colText, colTags}
	requiredColumns = []string{colURL, colTitle, colHandle, colSharedAt}
)

// importRow is one line's raw values, before validation.
type importRow struct {
	line                               int
	url, title, handle, sharedAt, text string
	tags                               []string
}

// ParseImport reads an import file. It returns the valid records and every bad line, in
// file order; err is for problems with the whole file (a bad CSV header, a read error).
// now bounds shared_at from above.
func ParseImport(r io.Reader, format ImportFormat, now time.Time) (recs []ImportRecord, bad []LineError, err error) {
	add := func(row importRow) {
		rec, reason := row.validate(now)
		if reason != "" {
			bad = append(bad, LineError{Line: row.line, Reason: reason})
			return
		}
		recs = append(recs, rec)
	}
	switch format {
	case FormatCSV:
		err = readCSV(r, add, func(e LineError) { bad = append(bad, e) })
	case FormatJSONL:
		err = readJSONL(r, add, func(e LineError) { bad = append(bad, e) })
	default:
		err = Errorf(EInvalid, "Unknown import format %q (want csv or jsonl).", format)
	}
	if err != nil {
		return nil, nil, err
	}
	return recs, bad, nil
}

// readCSV calls row for each record and fail for each record the CSV reader rejects.
func readCSV(r io.Reader, row func(importRow), fail func(LineError)) error {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return Errorf(EInvalid, "The file is empty: want a header row naming the columns %s.", strings.Join(requiredColumns, ", "))
	}
	if err != nil {
		return Errorf(EInvalid, "The header row is not valid CSV: %s.", csvReason(err))
	}
	col, err := parseHeader(header)
	if err != nil {
		return err
	}
	// Reject every short or long record rather than guessing which cell is missing.
	cr.FieldsPerRecord = len(header)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			reason := "invalid CSV: " + csvReason(err)
			if errors.Is(err, csv.ErrFieldCount) {
				reason = fmt.Sprintf("has %d fields, but the header has %d", len(rec), len(header))
			}
			fail(LineError{Line: pe.StartLine, Reason: reason})
			continue
		}
		if err != nil {
			return fmt.Errorf("read CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		cell := func(name string) string {
			if i, ok := col[name]; ok {
				return rec[i]
			}
			return ""
		}
		row(importRow{line: line, url: cell(colURL), title: cell(colTitle), handle: cell(colHandle),
			sharedAt: cell(colSharedAt), text: cell(colText), tags: splitTags(cell(colTags))})
	}
}

// parseHeader maps column names to their index, naming every unknown, repeated or missing column.
func parseHeader(header []string) (map[string]int, error) {
	col := map[string]int{}
	var unknown, repeated []string
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff") // the byte order mark spreadsheets write
		}
		name := strings.ToLower(strings.TrimSpace(h))
		switch _, seen := col[name]; {
		case !slices.Contains(importColumns, name):
			unknown = append(unknown, strconv.Quote(h))
		case seen:
			repeated = append(repeated, strconv.Quote(h))
		default:
			col[name] = i
		}
	}
	var missing []string
	for _, name := range requiredColumns {
		if _, ok := col[name]; !ok {
			missing = append(missing, name)
		}
	}
	var problems []string
	if len(unknown) > 0 {
		problems = append(problems, fmt.Sprintf("unknown %s %s", plural(len(unknown), "column"), strings.Join(unknown, ", ")))
	}
	if len(repeated) > 0 {
		problems = append(problems, fmt.Sprintf("repeated %s %s", plural(len(repeated), "column"), strings.Join(repeated, ", ")))
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("missing %s %s", plural(len(missing), "column"), strings.Join(missing, ", ")))
	}
	if len(problems) > 0 {
		return nil, Errorf(EInvalid, "The header row has %s (want %s).", strings.Join(problems, "; "), strings.Join(importColumns, ", "))
	}
	return col, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// csvReason is a csv.ParseError without its "record on line N" prefix, which the report says already.
func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// splitTags splits a CSV tags cell; spreadsheets tend to use semicolons, people commas or spaces.
func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
}

// readJSONL calls row for each JSON object line and fail for each line that is not one.
func readJSONL(r io.Reader, row func(importRow), fail func(LineError)) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte("\ufeff"))
			}
			if len(bytes.TrimSpace(line)) > 0 {
				if rw, reason := jsonRow(line); reason != "" {
					fail(LineError{Line: n, Reason: reason})
				} else {
					rw.line = n
					row(rw)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read JSONL: %w", err)
		}
	}
}

// jsonRow decodes one JSONL line, or says why it cannot.
func jsonRow(line []byte) (importRow, string) {
	if !utf8.Valid(line) {
		return importRow{}, "invalid JSON: not UTF-8"
	}
	var obj map[string]json.RawMessage
	err := json.Unmarshal(line, &obj)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) || err == nil && obj == nil {
		return importRow{}, "invalid JSON: want an object, one share per line"
	}
	if err != nil {
		return importRow{}, "invalid JSON: " + err.Error()
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(importColumns, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return importRow{}, fmt.Sprintf("unknown %s %s (want %s)", plural(len(unknown), "key"), strings.Join(unknown, ", "), strings.Join(importColumns, ", "))
	}
	var rw importRow
	for _, f := range []struct {
		key string
		dst *string
	}{{colURL, &rw.url}, {colTitle, &rw.title}, {colHandle, &rw.handle}, {colSharedAt, &rw.sharedAt}, {colText, &rw.text}} {
		if raw, ok := obj[f.key]; ok && json.Unmarshal(raw, f.dst) != nil {
			return importRow{}, f.key + " must be a string"
		}
	}
	if raw, ok := obj[colTags]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			rw.tags = splitTags(one)
		} else if json.Unmarshal(raw, &rw.tags) != nil {
			return importRow{}, "tags must be a string or an array of strings"
		}
	}
	return rw, ""
}

// validate turns a row into a record, or says plainly what is wrong with it.
func (row importRow) validate(now time.Time) (ImportRecord, string) {
	// PostgreSQL text must be UTF-8 without NUL; one bad cell must not fail the whole import.
	cells := []string{row.url, row.title, row.handle, row.sharedAt, row.text, strings.Join(row.tags, " ")} // importColumns' order
	for i, v := range cells {
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return ImportRecord{}, importColumns[i] + " is not valid UTF-8 text"
		}
	}
	handle := strings.TrimSpace(row.handle)
	if strings.TrimSpace(row.url) == "" {
		return ImportRecord{}, "url is required"
	}
	if handle == "" {
		return ImportRecord{}, "handle is required"
	}
	if err := ValidateHandle(handle); err != nil {
		return ImportRecord{}, handleReason(handle, err)
	}
	at, reason := parseSharedAt(row.sharedAt, now)
	if reason != "" {
		return ImportRecord{}, reason
	}
	p, err := Prepare(NewPost{URL: row.url, Title: row.title, Body: row.text, Tags: row.tags, CreatedAt: at})
	if err != nil {
		return ImportRecord{}, plain(err)
	}
	return ImportRecord{Line: row.line, Handle: handle, Post: p}, ""
}

// The shared_at layouts besides RFC 3339; both are read as UTC.
var dateLayouts = []string{"2006-01-02", "2006-01-02 15:04:05"}

func parseSharedAt(s string, now time.Time) (time.Time, string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, "shared_at is required"
	}
	t, err := time.Parse(time.RFC3339, s)
	for _, layout := range dateLayouts {
		if err == nil {
			break
		}
		t, err = time.Parse(layout, s)
	}
	if err != nil {
		return time.Time{}, fmt.Sprintf("shared_at %q is not a date (want RFC 3339, e.g. 2026-01-02T15:04:05Z)", s)
	}
	if t.After(now.Add(ImportFutureAllowance)) {
		return time.Time{}, fmt.Sprintf("shared_at %q is in the future", s)
	}
	// PostgreSQL keeps microseconds; the same instant must find the same share on re-import.
	return t.UTC().Truncate(time.Microsecond), ""
}

// handleReason puts the offending handle into ValidateHandle's message.
func handleReason(h string, err error) string {
	msg := plain(err)
	if strings.Contains(msg, strconv.Quote(h)) {
		return msg
	}
	if rest, ok := strings.CutPrefix(msg, "handle "); ok {
		return fmt.Sprintf("handle %q %s", h, rest)
	}
	return fmt.Sprintf("handle %q: %s", h, msg)
}

// plain turns a user-facing sentence ("Title must be short.") into a clause for a
// "line N: ..." report ("title must be short"); acronyms such as "URL" keep their case.
func plain(err error) string {
	msg := err.Error()
	var e *Error
	if errors.As(err, &e) {
		msg = e.Message
	}
	msg = strings.TrimSuffix(msg, ".")
	first, size := utf8.DecodeRuneInString(msg)
	second, _ := utf8.DecodeRuneInString(msg[size:])
	if unicode.IsUpper(first) && !unicode.IsUpper(second) {
		msg = string(unicode.ToLower(first)) + msg[size:]
	}
	return msg
}
