package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/presence"
)

// Store kinds, as --store names them and health shows them.
const (
	storeDir  = "dir"
	storeNATS = "nats"
)

// storeSpec is a parsed --store: the sidecar folder, or the NATS servers
// whose JetStream bucket several Halls share.
type storeSpec struct {
	Kind string // storeDir or storeNATS
	URLs string // comma-separated server URLs, for storeNATS
}

// parseStoreSpec reads --store: "dir" (or empty), or nats://host:port
// with more servers after commas (each with or without its scheme).
func parseStoreSpec(s string) (storeSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == storeDir {
		return storeSpec{Kind: storeDir}, nil
	}
	if !strings.HasPrefix(s, "nats://") && !strings.HasPrefix(s, "tls://") {
		return storeSpec{}, fmt.Errorf("--store %q: want dir or nats://host:port[,host:port…]", s)
	}
	var urls []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "://") {
			part = "nats://" + part
		}
		urls = append(urls, part)
	}
	return storeSpec{Kind: storeNATS, URLs: strings.Join(urls, ",")}, nil
}

// storeOptions is what the store factory needs from a command's flags.
type storeOptions struct {
	Spec         string // --store
	RegistryRoot string // the sidecar folder's root, for dir
	NATSCreds    string
	NATSTLSCA    string
	TTL          time.Duration // the longest ttl the bucket must hold
	Name         string        // the NATS client name
	OnConnect    func()        // called after every (re)connection to NATS
}

// openedStore is a store the factory built, with what its callers need to
// show and to release.
type openedStore struct {
	presence.Store
	Kind  string       // storeDir or storeNATS
	Where string       // the folder, or the servers and bucket, for logs
	close func() error // releases the connection; nil for dir
}

// Close releases what the store holds.
func (s openedStore) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// openStore builds the store --store names: the sidecar folder (created
// when missing) or a NATS bucket. An unreachable NATS server is not an
// error (the store keeps reconnecting and reports itself unavailable);
// only settings that can never work are.
func openStore(o storeOptions, log *slog.Logger) (openedStore, error) {
	spec, err := parseStoreSpec(o.Spec)
	if err != nil {
		return openedStore{}, err
	}
	switch spec.Kind {
	case storeNATS:
		s, err := natsstore.Open(natsstore.Options{
			URLs: spec.URLs, TTL: o.TTL, CredsFile: o.NATSCreds, TLSCAFile: o.NATSTLSCA,
			Name: o.Name, OnConnect: o.OnConnect, Logger: log,
		})
		if err != nil {
			return openedStore{}, err
		}
		return openedStore{Store: s, Kind: storeNATS, Where: s.Where(), close: s.Close}, nil
	default:
		s := dirstore.New(o.RegistryRoot)
		if err := s.Init(); err != nil {
			return openedStore{}, fmt.Errorf("open registry %s: %w", o.RegistryRoot, err)
		}
		return openedStore{Store: s, Kind: storeDir, Where: s.Dir()}, nil
	}
}
