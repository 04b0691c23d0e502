package tributary

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// importNow is the clock of the import tests.
var importNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// share is what a test checks of an ImportRecord.
type share struct {
	Line   int
	Handle string
	URL    string
	Title  string
	Body   string
	Tags   []string
	At     string
}

func sharesOf(recs []ImportRecord) []share {
	out := []share{}
	for _, r := range recs {
		out = append(out, share{Line: r.Line, Handle: r.Handle, URL: r.Post.NewPost.URL, Title: r.Post.Title,
			Body: r.Post.Body, Tags: r.Post.Tags, At: r.Post.CreatedAt.Format(time.RFC3339Nano)})
	}
	return out
}

func badOf(bad []LineError) []string {
	out := []string{}
	for _, b := range bad {
		out = append(out, b.Error())
	}
	return out
}

type parseCase struct {
	name string
	in   string
	want []share
	bad  []string
}

func runParseCases(t *testing.T, format ImportFormat, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs, bad, err := ParseImport(strings.NewReader(tc.in), format, importNow)
			if err != nil {
				t.Fatalf("ParseImport: %v", err)
			}
			want := tc.want
			if want == nil {
				want = []share{}
			}
			if got := sharesOf(recs); !reflect.DeepEqual(got, want) {
				t.Errorf("records:\ngot  %+v\nwant %+v", got, want)
			}
			wantBad := tc.bad
			if wantBad == nil {
				wantBad = []string{}
			}
			if got := badOf(bad); !reflect.DeepEqual(got, wantBad) {
				t.Errorf("bad lines:\ngot  %q\nwant %q", got, wantBad)
			}
		})
	}
}

func TestParseImportCSV(t *testing.T) {
	const header = "url,title,handle,shared_at\n"
	runParseCases(t, FormatCSV, []parseCase{
		{
			name: "all columns in any order",
			in: "handle,tags,shared_at,text,url,title\n" +
				"ada,\"ML; #NLP,vision  ml\",2026-01-02T15:04:05Z, A comment ,https://arxiv.org/abs/2401.00001v2,A paper\n",
			want: []share{{Line: 2, Handle: "ada", URL: "https://arxiv.org/abs/2401.00001v2", Title: "A paper",
				Body: "A comment", Tags: []string{"ml", "nlp", "vision"}, At: "2026-01-02T15:04:05Z"}},
		},
		{
			name: "date formats",
			in: header +
				"https://a.com/1,,ada,2026-01-02T16:04:05+01:00\n" +
				"https://a.com/2,,ada,2026-01-02\n" +
				"https://a.com/3,,ada,2026-01-02 15:04:05\n" +
				"https://a.com/4,,ada,2026-01-02T15:04:05.123456789Z\n",
			want: []share{
				{Line: 2, Handle: "ada", URL: "https://a.com/1", Title: "https://a.com/1", Tags: []string{}, At: "2026-01-02T15:04:05Z"},
				{Line: 3, Handle: "ada", URL: "https://a.com/2", Title: "https://a.com/2", Tags: []string{}, At: "2026-01-02T00:00:00Z"},
				{Line: 4, Handle: "ada", URL: "https://a.com/3", Title: "https://a.com/3", Tags: []string{}, At: "2026-01-02T15:04:05Z"},
				{Line: 5, Handle: "ada", URL: "https://a.com/4", Title: "https://a.com/4", Tags: []string{}, At: "2026-01-02T15:04:05.123456Z"},
			},
		},
		{
			name: "quoted fields with commas and newlines keep line numbers",
			in: header +
				"https://a.com/1,\"Title, with comma\",ada,2026-01-02\n" +
				"https://a.com/2,\"Two\nline\ntitle\",bob,2026-01-02\n" +
				"https://a.com/3,\"\"\"Quoted\"\"\",Cy,2026-01-02\n" +
				"not a url,\"bad\nafter newlines\",cy,2026-01-02\n",
			want: []share{
				{Line: 2, Handle: "ada", URL: "https://a.com/1", Title: "Title, with comma", Tags: []string{}, At: "2026-01-02T00:00:00Z"},
				{Line: 3, Handle: "bob", URL: "https://a.com/2", Title: "Two\nline\ntitle", Tags: []string{}, At: "2026-01-02T00:00:00Z"},
				{Line: 6, Handle: "Cy", URL: "https://a.com/3", Title: `"Quoted"`, Tags: []string{}, At: "2026-01-02T00:00:00Z"},
			},
			bad: []string{"line 7: URL is not valid: url must start with http:// or https://"},
		},
		{
			name: "byte order mark and spaced header",
			in:   "\ufeffURL, Title ,handle,shared_at\nhttps://a.com/1,T,ada,2026-01-02\n",
			want: []share{{Line: 2, Handle: "ada", URL: "https://a.com/1", Title: "T", Tags: []string{}, At: "2026-01-02T00:00:00Z"}},
		},
		{
			name: "header only",
			in:   header,
		},
		{
			name: "every kind of bad line",
			in: header +
				"https://a.com/ok,,ada,2026-01-02\n" + // 2
				"ftp://a.com/x,,ada,2026-01-02\n" + // 3
				",,ada,2026-01-02\n" + // 4
				"https://a.com/1,,,2026-01-02\n" + // 5
				"https://a.com/1,,x y,2026-01-02\n" + // 6
				"https://a.com/1,,x,2026-01-02\n" + // 7
				"https://a.com/1,,admin,2026-01-02\n" + // 8
				"https://a.com/1,,ada,yesterday\n" + // 9
				"https://a.com/1,,ada,\n" + // 10
				"https://a.com/1,,ada,2026-03-02\n" + // 11
				"https://a.com/1,,ada\n" + // 12
				"https://a.com/1,\"" + strings.Repeat("t", TitleMaxLen+1) + "\",ada,2026-01-02\n" + // 13
				"https://a.com/1,ti\"tle,ada,2026-01-02\n" + // 14
				"https://a.com/ok2,,ada,2026-03-01T12:09:00Z\n", // 15: within the allowance
			want: []share{
				{Line: 2, Handle: "ada", URL: "https://a.com/ok", Title: "https://a.com/ok", Tags: []string{}, At: "2026-01-02T00:00:00Z"},
				{Line: 15, Handle: "ada", URL: "https://a.com/ok2", Title: "https://a.com/ok2", Tags: []string{}, At: "2026-03-01T12:09:00Z"},
			},
			bad: []string{
				"line 3: URL is not valid: url must start with http:// or https://",
				"line 4: url is required",
				"line 5: handle is required",
				`line 6: handle "x y" may use only letters, digits, '_' and '-', and must start with a letter or digit`,
				`line 7: handle "x" must be 2 to 30 characters long`,
				`line 8: handle "admin" is reserved`,
				`line 9: shared_at "yesterday" is not a date (want RFC 3339, e.g. 2026-01-02T15:04:05Z)`,
				"line 10: shared_at is required",
				`line 11: shared_at "2026-03-02" is in the future`,
				"line 12: has 3 fields, but the header has 4",
				"line 13: title must be at most 300 characters long",
				`line 14: invalid CSV: bare " in non-quoted-field`,
			},
		},
		{
			name: "bad tags",
			in: "url,title,handle,shared_at,tags\n" +
				"https://a.com/1,,ada,2026-01-02,ok bad!\n" +
				"https://a.com/1,,ada,2026-01-02," + strings.Repeat("t ", MaxTags) + "a b c d e f g h i j k\n",
			bad: []string{
				`line 2: tag "bad!" may use only letters, digits, '-', '_' and '.'`,
				"line 3: a post may have at most 10 tags",
			},
		},
		{
			name: "text too long and not UTF-8",
			in: "url,title,handle,shared_at,text\n" +
				"https://a.com/1,,ada,2026-01-02," + strings.Repeat("x", BodyMaxLen+1) + "\n" +
				"https://a.com/1,\xff,ada,2026-01-02,\n",
			bad: []string{
				"line 2: comment must be at most 5000 characters long",
				"line 3: title is not valid UTF-8 text",
			},
		},
	})
}

func TestParseImportCSVHeader(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", "The file is empty"},
		{"unknown columns", "url,title,handle,shared_at,Likes,views\n", `unknown columns "Likes", "views"`},
		{"missing columns", "url,text\n", "missing columns title, handle, shared_at"},
		{"missing one column", "url,title,handle\n", "missing column shared_at ("},
		{"repeated column", "url,title,handle,shared_at,url\n", `repeated column "url"`},
		{"all at once", "url,url,foo\n", `unknown column "foo"; repeated column "url"; missing columns title, handle, shared_at`},
		{"not CSV", "url,\"title\n", "The header row is not valid CSV"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, bad, err := ParseImport(strings.NewReader(tc.in), FormatCSV, importNow)
			if err == nil || !strings.Contains(ErrorMessage(err), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if got := ErrorCode(err); got != EInvalid {
				t.Errorf("got code %q, want %q", got, EInvalid)
			}
			if recs != nil || bad != nil {
				t.Errorf("got %d records and %d bad lines with a header error, want none", len(recs), len(bad))
			}
		})
	}
}

func TestParseImportJSONL(t *testing.T) {
	runParseCases(t, FormatJSONL, []parseCase{
		{
			name: "good lines, blank lines counted",
			in: `{"url":"https://github.com/a/b","title":"Repo","handle":"ada","shared_at":"2026-01-02T15:04:05Z","text":"Nice","tags":"go, db;x"}` + "\n" +
				"\n" +
				`{"handle":"Bob","shared_at":"2026-01-02","url":"https://a.com/1","tags":["ML","#go"]}` + "\r\n" +
				`  {"url":"https://a.com/2","handle":"cy","shared_at":"2026-01-02 10:00:00","tags":null,"text":null}`, // no final newline
			want: []share{
				{Line: 1, Handle: "ada", URL: "https://github.com/a/b", Title: "Repo", Body: "Nice", Tags: []string{"db", "go", "x"}, At: "2026-01-02T15:04:05Z"},
				{Line: 3, Handle: "Bob", URL: "https://a.com/1", Title: "https://a.com/1", Tags: []string{"go", "ml"}, At: "2026-01-02T00:00:00Z"},
				{Line: 4, Handle: "cy", URL: "https://a.com/2", Title: "https://a.com/2", Tags: []string{}, At: "2026-01-02T10:00:00Z"},
			},
		},
		{
			name: "every kind of bad line",
			in: `{"url":"https://a.com/ok","handle":"ada","shared_at":"2026-01-02"}` + "\n" + // 1
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02"` + "\n" + // 2
				`not json` + "\n" + // 3
				`["https://a.com/1"]` + "\n" + // 4
				`null` + "\n" + // 5
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02","likes":3,"Views":1}` + "\n" + // 6
				`{"url":42,"handle":"ada","shared_at":"2026-01-02"}` + "\n" + // 7
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02","tags":[1]}` + "\n" + // 8
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02","tags":{"a":1}}` + "\n" + // 9
				`{"handle":"ada","shared_at":"2026-01-02"}` + "\n" + // 10
				`{"url":"https://a.com/1","shared_at":"2026-01-02"}` + "\n" + // 11
				`{"url":"https://a.com/1","handle":"x y","shared_at":"2026-01-02"}` + "\n" + // 12
				`{"url":"https://a.com/1","handle":"ada","shared_at":"yesterday"}` + "\n" + // 13
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2027-01-01T00:00:00Z"}` + "\n" + // 14
				`{"url":"javascript:alert(1)","handle":"ada","shared_at":"2026-01-02"}` + "\n" + // 15
				"{\"url\":\"https://a.com/\xff\",\"handle\":\"ada\",\"shared_at\":\"2026-01-02\"}\n" + // 16
				`{"url":"https://a.com/1","handle":"ada","shared_at":"2026-01-02","text":"a\u0000b"}` + "\n", // 17
			want: []share{{Line: 1, Handle: "ada", URL: "https://a.com/ok", Title: "https://a.com/ok", Tags: []string{}, At: "2026-01-02T00:00:00Z"}},
			bad: []string{
				"line 2: invalid JSON: unexpected end of JSON input",
				"line 3: invalid JSON: invalid character 'o' in literal null (expecting 'u')",
				"line 4: invalid JSON: want an object, one share per line",
				"line 5: invalid JSON: want an object, one share per line",
				`line 6: unknown keys "Views", "likes" (want url, title, handle, shared_at, text, tags)`,
				"line 7: url must be a string",
				"line 8: tags must be a string or an array of strings",
				"line 9: tags must be a string or an array of strings",
				"line 10: url is required",
				"line 11: handle is required",
				`line 12: handle "x y" may use only letters, digits, '_' and '-', and must start with a letter or digit`,
				`line 13: shared_at "yesterday" is not a date (want RFC 3339, e.g. 2026-01-02T15:04:05Z)`,
				`line 14: shared_at "2027-01-01T00:00:00Z" is in the future`,
				"line 15: URL is not valid: url must start with http:// or https://",
				"line 16: invalid JSON: not UTF-8",
				"line 17: text is not valid UTF-8 text",
			},
		},
	})
}

func TestImportFormat(t *testing.T) {
	tests := []struct {
		path string
		want ImportFormat
		ok   bool
	}{
		{"shares.csv", FormatCSV, true},
		{"dir.v1/SHARES.CSV", FormatCSV, true},
		{"shares.jsonl", FormatJSONL, true},
		{"shares.ndjson", FormatJSONL, true},
		{"shares.json", "", false},
		{"shares", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := ImportFormatOf(tc.path)
			if got != tc.want || (err == nil) != tc.ok {
				t.Errorf("ImportFormatOf(%q) = %q, %v; want %q, ok %v", tc.path, got, err, tc.want, tc.ok)
			}
		})
	}
	for _, tc := range []struct {
		flag string
		want ImportFormat
		ok   bool
	}{{"csv", FormatCSV, true}, {"JSONL", FormatJSONL, true}, {"ndjson", FormatJSONL, true}, {"xml", "", false}} {
		t.Run("flag "+tc.flag, func(t *testing.T) {
			got, err := ParseImportFormat(tc.flag)
			if got != tc.want || (err == nil) != tc.ok {
				t.Errorf("ParseImportFormat(%q) = %q, %v; want %q, ok %v", tc.flag, got, err, tc.want, tc.ok)
			}
		})
	}
}

func ExampleLineError() {
	_, bad, _ := ParseImport(strings.NewReader("url,title,handle,shared_at\nhttps://arxiv.org/abs/2401.00001,,x y,2026-01-02\n"), FormatCSV, importNow)
	fmt.Println(bad[0])
	// Output: line 2: handle "x y" may use only letters, digits, '_' and '-', and must start with a letter or digit
}
