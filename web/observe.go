package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// requestInfo is what the outermost middleware knows of a request: its id (from the
// client's X-Request-Id when sane, else made here) and the route that served it.
type requestInfo struct {
	id      string
	route   string
	peer    peer // the client (peerOf), found once for limits, logs, links and cookies
	changed bool // content open pages may hear of changed: the site is woken after the answer
}

const infoKey ctxKey = 1

func infoOf(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(infoKey).(*requestInfo)
	return ri
}

// requestID is the id of the request ctx belongs to, or "".
func requestID(ctx context.Context) string {
	if ri := infoOf(ctx); ri != nil {
		return ri.id
	}
	return ""
}

// newRequestID keeps the client's X-Request-Id when it is a short token (it goes into log
// lines, headers and error pages), and makes one otherwise.
func newRequestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); len(id) >= 8 && len(id) <= 64 && isToken(id) {
		return id
	}
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// isToken: only letters, digits, '.', '_' and '-'.
func isToken(s string) bool {
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// methodLabel is a request's method as a metric label: one of the standard methods or
// "other", so that made-up methods cannot add series without end.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// requestIDHandler adds the request id to every log line written with a request's context.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := requestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

// Metrics are the server's Prometheus metrics, served apart from the site (MetricsHandler).
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.HistogramVec
	refresh  prometheus.Histogram
	rows     prometheus.Gauge
	// badgeKept counts the badge's requests answered from kept state (Server.keptBadge).
	badgeKept prometheus.Counter
}

// CacheStats reports a cache's hits and misses so far.
type CacheStats func() (hits, misses uint64)

// liveHeap adds to Go's usual metrics the heap its last collection found live
// (go_gc_heap_live_bytes): what the process holds, where the heap's other measures move with
// when the garbage was last collected.
var liveHeap = collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)}

func newMetrics(pool *pgxpool.Pool, anon, rivers CacheStats, up func() bool, live *liveHub) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(),
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tributary_http_request_duration_seconds",
			Help:    "Time to answer a request, by route, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}},
			[]string{"route", "method", "status"}),
		refresh: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tributary_snapshot_refresh_duration_seconds",
			Help: "How long snapshot refreshes took.", Buckets: prometheus.ExponentialBuckets(0.25, 2, 10)}),
		rows: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tributary_snapshot_rows", Help: "Rows of the last snapshot refresh."}),
	}
	m.badgeKept = prometheus.NewCounter(prometheus.CounterOpts{Name: "tributary_badge_kept_total",
		Help: "Unread badge requests answered from the session and count this instance kept, without a read."})
	m.reg.MustRegister(m.requests, m.refresh, m.rows, m.badgeKept,
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(liveHeap)), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		poolCollector{pool},
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_anon_cache_hits_total", Help: "Anonymous pages served from the cache."},
			func() float64 { h, _ := anon(); return float64(h) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_anon_cache_misses_total", Help: "Anonymous pages computed."},
			func() float64 { _, m := anon(); return float64(m) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_river_hits_total", Help: "Home feed intervals served from their reader's river."},
			func() float64 { h, _ := rivers(); return float64(h) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_river_misses_total", Help: "Home feed intervals read from the posts (no river, or one that could not answer)."},
			func() float64 { _, m := rivers(); return float64(m) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tributary_live_streams_open", Help: "Live streams open on this instance."},
			func() float64 { return float64(live.open()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_live_asks_total", Help: "Notices live streams asked for as their readers."},
			func() float64 { return float64(live.asks.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "tributary_live_counted_total", Help: "Notices live streams told from their last count, without asking."},
			func() float64 { return float64(live.counted.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "tributary_site_listener_up", Help: "1 while this instance hears of every change on the site."},
			func() float64 {
				if up() {
					return 1
				}
				return 0
			}))
	return m
}

// Refreshed records a snapshot refresh.
func (m *Metrics) Refreshed(d time.Duration, rows int) {
	m.refresh.Observe(d.Seconds())
	m.rows.Set(float64(rows))
}

// Handler serves the metrics in Prometheus' format; it is meant for a listener of its own
// (serve --metrics-addr), never the public site.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// poolCollector reports the database pool's state.
type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolConns    = prometheus.NewDesc("tributary_db_pool_connections", "Pool connections by state.", []string{"state"}, nil)
	poolMax      = prometheus.NewDesc("tributary_db_pool_max_connections", "The pool's size limit.", nil, nil)
	poolAcquires = prometheus.NewDesc("tributary_db_pool_acquires_total", "Connections acquired from the pool.", nil, nil)
	poolWaits    = prometheus.NewDesc("tributary_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.", nil, nil)
	poolWaited   = prometheus.NewDesc("tributary_db_pool_acquire_seconds_total", "Time spent acquiring connections.", nil, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConns, poolMax, poolAcquires, poolWaits, poolWaited} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(st.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(st.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaited, prometheus.CounterValue, st.AcquireDuration().Seconds())
}

// routed serves mux and notes the route that answered (the mux sets r.Pattern on the
// request it routes), so the request is routed once. Routes are the mux's patterns, a fixed
// set, whatever the path asked for.
func routed(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if ri := infoOf(r.Context()); ri != nil {
			ri.route = r.Pattern
		}
	})
}

// observe is the outermost middleware: it gives the request its id (in the X-Request-Id
// answer header, every log line and the 5xx page), times it by route and status, and logs it
// at debug level.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := &requestInfo{id: newRequestID(r), route: "unrouted", // refused before the routes (CSRF, body cap)
			peer: peerOf(r, s.trusted)}
		w.Header().Set("X-Request-Id", ri.id)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK, start: time.Now(), timing: s.serverTiming}
		r = r.WithContext(context.WithValue(r.Context(), infoKey, ri))
		next.ServeHTTP(rec, r)
		if ri.changed {
			s.wakeSite()
		}
		dur := time.Since(rec.start)
		method := methodLabel(r.Method)
		s.metrics.requests.WithLabelValues(ri.route, method, strconv.Itoa(rec.status)).Observe(dur.Seconds())
		s.log.DebugContext(r.Context(), "request", "method", method, "path", r.URL.Path, "client", ri.peer.addr, "status", rec.status, "dur", dur)
	})
}
