package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Cost growth in one run (issue 17): a run at another scale than 400k measures the pages at
// one client on both datasets, one scenario on each in turn, so that the ratio of the two is
// not the ratio of two hours of a shared machine. A second server serves the 400k dataset
// meanwhile; each answers only its own scenarios.

// pairKinds are the page scenarios measured on both datasets.
var pairKinds = []struct {
	prefix string
	make   func(w *world, c class, conc int) scenario
}{
	{"first_cold_", (*world).coldFirst},
	{"next_page_", (*world).nextPages},
	{"first_reload_", (*world).reloadFirst},
}

// refScale is the dataset the others are compared with.
const refScale = "400k"

// pairName names a scenario of a pair: growth_<kind><class>, with refSuffix on the 400k side.
func pairName(prefix, class string) string { return "growth_" + prefix + class }

const refSuffix = "_at400k"

// pairsWanted reports whether a run measures pairs: a run of the 4M dataset in the bench's
// own cluster (where the 400k dataset has a database of its own).
func pairsWanted(cfg Config) bool {
	return cfg.Scale == "4m" && cfg.Database.URL == "" && (cfg.Only == nil || cfg.Only.MatchString("growth_"))
}

// measurePairs runs the page scenarios in pairs: at this run's scale on srv (whose world is
// w, its database pool), then on a server of the 400k dataset, started here and stopped
// when done.
func measurePairs(ctx context.Context, cfg Config, srv *server, pool *pgxpool.Pool, w *world) ([]Result, error) {
	ref := cfg
	ref.Scale, ref.Dataset, ref.Database.Name, ref.Only = refScale, Dataset{}, "", nil
	ref.Defaults()
	dbase, unlock, err := ref.openLocked(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	fmt.Fprintf(cfg.Log, "bench: pairs: the %s dataset beside this one\n", refScale)
	info, err := prepareDataset(ctx, ref, dbase)
	if err != nil {
		return nil, err
	}
	rpool, err := openPool(ctx, dbase.DSN, cfg.Concurrency+8)
	if err != nil {
		return nil, err
	}
	defer rpool.Close()
	rsrv, err := startServer(ctx, cfg.Binary, dbase.DSN)
	if err != nil {
		return nil, err
	}
	defer rsrv.stop()
	if _, err := rsrv.waitRefresh(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	rw, err := newWorld(ctx, rsrv.URL, rpool, info, ref)
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, c := range w.classes {
		for _, k := range pairKinds {
			here, there := k.make(w, c, 1), k.make(rw, rw.classes[i], 1)
			here.Name, there.Name = pairName(k.prefix, c.Name), pairName(k.prefix, c.Name)+refSuffix
			for _, run := range []struct {
				srv  *server
				pool *pgxpool.Pool
				sc   scenario
			}{{srv, pool, here}, {rsrv, rpool, there}} {
				res, err := runScenarios(ctx, cfg, run.srv, run.pool, []scenario{run.sc})
				out = append(out, res...)
				if err != nil {
					return out, err
				}
			}
		}
	}
	return out, nil
}

// pairTargets are issue 17's targets at 4M: first and next pages at one client no slower
// than 1.5× their 400k figures in the same run.
func pairTargets(r Report) []Target {
	var out []Target
	for _, c := range []string{"light", "median", "heavy"} {
		for _, k := range pairKinds {
			x, ok1 := r.result(pairName(k.prefix, c))
			ref, ok2 := r.result(pairName(k.prefix, c) + refSuffix)
			if !ok1 || !ok2 || ref.ServerP50 <= 0 {
				continue
			}
			ratio := x.ServerP50 / ref.ServerP50
			out = append(out, Target{What: fmt.Sprintf("p50 at %s posts ≤ 1.5× at 400k, one client, same run", posts(r.Dataset.Posts)), Scenario: x.Name,
				Measured: fmt.Sprintf("×%.2f (%s against %s)", ratio, fmtMs(x.ServerP50), fmtMs(ref.ServerP50)), Met: x.Requests > 0 && ratio <= 1.5})
		}
	}
	return out
}
