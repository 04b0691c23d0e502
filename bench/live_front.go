package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The live measurement's load balancers: its pages and streams reach the instances through
// haproxy, as in the topology, when haproxy is installed.

// liveFrontStreams is how many streams one haproxy carries: it holds two descriptors a
// stream (the client's and the instance's), and a process here holds at most 20,000
// (ulimit -Hn), so 10,000 streams take two, as two load balancers behind one name would.
const liveFrontStreams = 5000

// liveFronts starts the haproxy processes in front of servers for n streams, each in front
// of every server, and returns their URLs and how to stop them; with haproxy not
// installed, the servers' own URLs (fronts 0).
func liveFronts(ctx context.Context, servers []*server, n int) (urls []string, fronts int, stop func(), err error) {
	var backends []string
	for _, s := range servers {
		backends = append(backends, s.URL)
	}
	if _, err := haproxyBinary(); err != nil {
		return backends, 0, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "tributary-bench-live-")
	if err != nil {
		return nil, 0, nil, err
	}
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
		os.RemoveAll(dir)
	}
	for i := range max(1, (n+liveFrontStreams-1)/liveFrontStreams) {
		d := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(d, 0o755); err != nil {
			stop()
			return nil, 0, nil, err
		}
		u, st, err := startHAProxy(ctx, d, liveFrontStreams+100, backends...)
		if err != nil {
			stop()
			return nil, 0, nil, fmt.Errorf("bench: live notices: %w", err)
		}
		urls, stops = append(urls, u), append(stops, st)
	}
	return urls, len(urls), stop, nil
}
