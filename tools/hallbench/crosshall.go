package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// crossHall: two Halls on one NATS JetStream server; a beat POSTed into
// Hall A, timed until it reaches a live-stream subscriber of Hall B.
func (b *bench) crossHall(ctx context.Context) error {
	ns, err := b.startNATS("nats")
	if err != nil {
		return err
	}
	defer ns.Shutdown()
	store := "--store=" + ns.ClientURL()
	hallA, err := b.startHall(ctx, b.newRoot("cross-a"), store)
	if err != nil {
		return err
	}
	defer hallA.stop()
	hallB, err := b.startHall(ctx, b.newRoot("cross-b"), store)
	if err != nil {
		return err
	}
	defer hallB.stop()

	probes := 100
	if b.o.quick {
		probes = 20
	}
	sub, err := b.worker(ctx, "", "-role", "subscribe", "-url", hallB.url, "-subs", "1", "-probes", fmt.Sprint(probes), "-duration", "120s")
	if err != nil {
		return err
	}
	defer sub.stop()
	if err := sub.waitLine("ready", 60*time.Second); err != nil {
		return fmt.Errorf("subscriber on Hall B: %w", err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for i := 0; i < probes; i++ {
		body, _ := json.Marshal(map[string]string{
			"agent_id": fmt.Sprintf("%s%d", probePrefix, time.Now().UnixNano()), "brain": "/bench/cross",
		})
		resp, err := client.Post(hallA.url+"/api/presences/beat", "application/json", bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("beat into Hall A: %w", err)
		}
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
	}
	var r subscribeResult
	if err := sub.result(&r); err != nil {
		return err
	}
	b.add("cross-Hall: beat into Hall A → Hall B's stream, one NATS server: p50 / p99",
		fmt.Sprintf("%.1f / %.1f ms (%d samples, %d missed)", r.P50Ms, r.P99Ms, r.Samples, r.Missed), "measured", pass(r.Missed == 0))
	return nil
}

// startNATS runs an in-process NATS JetStream server on a free port,
// storing under the bench's directory name; the caller shuts it down.
func (b *bench) startNATS(name string) (*natsserver.Server, error) {
	ns, err := natsserver.NewServer(&natsserver.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: filepath.Join(b.tmp, name), NoLog: true, NoSigs: true,
	})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("nats server not ready in 10 s")
	}
	return ns, nil
}
