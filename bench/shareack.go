package bench

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// The share's acknowledgement with fetching on and off (issue 45: at most +5 % p50): one
// sharer posts new fixture links through the share form, in turns of shareAckTurn, to the
// bench's server (fetching on: its jobs fetch the cards of every share meanwhile) and to a
// second instance started with --fetch off, same database, same run.
const (
	shareAckShares = 400 // in all, half through each instance
	shareAckTurn   = 25
	shareAckEvery  = 20 * time.Millisecond
)

func shareAck(ctx context.Context, cfg Config, on *server, dsn string, w *world, fix *cardFixture) ([]Result, error) {
	with := Result{Name: "cards_share_fetch_on", Group: "a share's acknowledgement, fetching on and off", Kind: "http", Concurrency: 1}
	without := Result{Name: "cards_share_fetch_off", Group: with.Group, Kind: "http", Concurrency: 1}
	off, err := secondInstance(ctx, cfg, with.Name+" (--fetch off)", dsn, append(fix.args(), "--fetch", "off")...)
	if err != nil {
		return nil, err
	}
	defer off.stop()
	tr := &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 2}
	defer tr.CloseIdleConnections()
	type side struct {
		c              *client
		client, server []time.Duration
		errs           []error
	}
	sides := []*side{{c: newClient(on.URL, tr)}, {c: newClient(off.URL, tr)}}
	for _, s := range sides {
		s.c.setSession(w.events[0])
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	for i := range shareAckShares {
		s := sides[(i/shareAckTurn)%2]
		if d, err := shareForm(ctx, s.c, fmt.Sprintf("http://%s/ack/%s/%d", cardHost(i), run, i), "A share to acknowledge"); err != nil {
			s.errs = append(s.errs, err)
		} else {
			s.client, s.server = append(s.client, d.client), append(s.server, d.server)
		}
		time.Sleep(shareAckEvery)
	}
	summarizeInto(&with, sides[0].client, sides[0].server, sides[0].errs)
	summarizeInto(&without, sides[1].client, sides[1].server, sides[1].errs)
	with.Note = fmt.Sprintf("POST /share of a new fixture link by one sharer, %s apart, in turns of %d with the row below, to the bench's server, which fetches the cards of every share meanwhile (its jobs, one page per host per second)",
		shareAckEvery, shareAckTurn)
	without.Note = "the same shares, in the turns between, to a second instance on the same database started with --fetch off"
	return []Result{with, without}, nil
}

// shareAckTarget: a share's acknowledgement with fetching on is at most 5 % slower (server
// p50) than with fetching off.
func shareAckTarget(r Report) []Target {
	on, ok1 := r.result("cards_share_fetch_on")
	off, ok2 := r.result("cards_share_fetch_off")
	if !ok1 || !ok2 || off.ServerP50 == 0 {
		return nil
	}
	return []Target{{What: "a share's acknowledgement with fetching on ≤ 1.05× with it off (p50, same run)", Scenario: on.Name,
		Measured: fmt.Sprintf("×%.2f (%s against %s)", on.ServerP50/off.ServerP50, fmtMs(on.ServerP50), fmtMs(off.ServerP50)),
		Met:      on.Requests > 0 && on.Errors == 0 && off.Errors == 0 && on.ServerP50 <= 1.05*off.ServerP50}}
}
