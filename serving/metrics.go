package serving

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// Metrics are the serving layer's Prometheus metrics, on a registry of
// their own (so that two servers in one process, as tests make, do not
// collide in the global one). Every method is safe on a nil *Metrics.
type Metrics struct {
	// Registry holds the metrics below and the Go runtime's and the
	// process's collectors; Handler serves it.
	Registry *prometheus.Registry

	requests   *prometheus.CounterVec   // endpoint, code
	latency    *prometheus.HistogramVec // endpoint
	depth      *prometheus.GaugeVec     // queue
	inflight   *prometheus.GaugeVec     // queue
	rejects    *prometheus.CounterVec   // queue
	waits      *prometheus.HistogramVec // queue
	batchSize  *prometheus.HistogramVec // queue
	tokens     *prometheus.CounterVec   // kind: prompt, completion
	ttft       prometheus.Histogram
	finished   *prometheus.CounterVec // reason: stop, length, cancelled, error
	cancelled  prometheus.Counter
	tokenRate  prometheus.Histogram
	embeddings prometheus.Counter
}

// NewMetrics makes the metrics on a new registry.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	f := func(c prometheus.Collector) prometheus.Collector { r.MustRegister(c); return c }
	lat := prometheus.ExponentialBuckets(0.001, 2, 16) // 1 ms … 33 s
	m := &Metrics{Registry: r}
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.requests = f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "emily_http_requests_total",
		Help: "HTTP requests answered, by endpoint and status code."}, []string{"endpoint", "code"})).(*prometheus.CounterVec)
	m.latency = f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "emily_http_request_duration_seconds",
		Help: "Time from a request's arrival to the end of its reply, by endpoint.", Buckets: lat}, []string{"endpoint"})).(*prometheus.HistogramVec)
	m.depth = f(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "emily_queue_depth",
		Help: "Requests admitted and waiting to start, by queue."}, []string{"queue"})).(*prometheus.GaugeVec)
	m.inflight = f(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "emily_queue_running",
		Help: "Requests running, by queue."}, []string{"queue"})).(*prometheus.GaugeVec)
	m.rejects = f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "emily_queue_rejected_total",
		Help: "Requests refused because the queue was full (HTTP 429), by queue."}, []string{"queue"})).(*prometheus.CounterVec)
	m.waits = f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "emily_queue_wait_seconds",
		Help: "Time a request waited in the queue before it started (or was cancelled), by queue.", Buckets: lat}, []string{"queue"})).(*prometheus.HistogramVec)
	m.batchSize = f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "emily_batch_items",
		Help: "Items (texts) in each batch run, by queue.", Buckets: prometheus.ExponentialBuckets(1, 2, 9)}, []string{"queue"})).(*prometheus.HistogramVec)
	m.tokens = f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "emily_tokens_total",
		Help: "Tokens processed by generation: kind=prompt (prefilled) or completion (generated)."}, []string{"kind"})).(*prometheus.CounterVec)
	m.ttft = f(prometheus.NewHistogram(prometheus.HistogramOpts{Name: "emily_time_to_first_token_seconds",
		Help: "Time from a generation's start to its first token.", Buckets: lat})).(prometheus.Histogram)
	m.tokenRate = f(prometheus.NewHistogram(prometheus.HistogramOpts{Name: "emily_decode_tokens_per_second",
		Help: "Decode rate of each finished generation.", Buckets: prometheus.ExponentialBuckets(1, 2, 14)})).(prometheus.Histogram)
	m.finished = f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "emily_generations_total",
		Help: "Generations ended, by finish reason (stop, length, cancelled, error)."}, []string{"reason"})).(*prometheus.CounterVec)
	m.cancelled = f(prometheus.NewCounter(prometheus.CounterOpts{Name: "emily_requests_cancelled_total",
		Help: "Requests whose client went away or whose deadline passed before they were answered."})).(prometheus.Counter)
	m.embeddings = f(prometheus.NewCounter(prometheus.CounterOpts{Name: "emily_embeddings_total",
		Help: "Texts embedded."})).(prometheus.Counter)
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

func (m *Metrics) request(endpoint string, code int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(endpoint, fmt.Sprint(code)).Inc()
	m.latency.WithLabelValues(endpoint).Observe(d.Seconds())
}

func (m *Metrics) setDepth(queue string, n int) {
	if m != nil {
		m.depth.WithLabelValues(queue).Set(float64(n))
	}
}

func (m *Metrics) running(queue string, delta float64) {
	if m != nil {
		m.inflight.WithLabelValues(queue).Add(delta)
	}
}

func (m *Metrics) rejected(queue string) {
	if m != nil {
		m.rejects.WithLabelValues(queue).Inc()
	}
}

func (m *Metrics) waited(queue string, d time.Duration) {
	if m != nil {
		m.waits.WithLabelValues(queue).Observe(d.Seconds())
	}
}

func (m *Metrics) batched(queue string, batch []*Job) {
	if m == nil {
		return
	}
	n := 0
	for _, j := range batch {
		n += j.Size
	}
	m.batchSize.WithLabelValues(queue).Observe(float64(n))
}

// Generation records one finished generation.
func (m *Metrics) generation(reason string, prompt, completion int, ttft, decode time.Duration) {
	if m == nil {
		return
	}
	m.finished.WithLabelValues(reason).Inc()
	m.tokens.WithLabelValues("prompt").Add(float64(prompt))
	m.tokens.WithLabelValues("completion").Add(float64(completion))
	if ttft > 0 {
		m.ttft.Observe(ttft.Seconds())
	}
	if completion > 1 && decode > 0 {
		m.tokenRate.Observe(float64(completion-1) / decode.Seconds())
	}
}

func (m *Metrics) cancel() {
	if m != nil {
		m.cancelled.Inc()
	}
}

func (m *Metrics) embedded(n int) {
	if m != nil {
		m.embeddings.Add(float64(n))
	}
}
