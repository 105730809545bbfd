package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/stream"
)

// watchConfig is everything watch needs, parsed from flags and HALL_*.
type watchConfig struct {
	Hall            string
	Brain           string
	PresenceID      string
	Token           string
	JSON            bool
	CollisionsOnly  bool
	ExitOnCollision bool
	ExitOnConflict  bool
}

// watchAbout opens watch's usage.
const watchAbout = `usage: hall watch [flags]

Follows a Hall's live stream and prints joins, leaves, collisions and
overlaps (two worktrees that changed the same files) as they happen. Reconnects and resumes by itself; Ctrl-C ends it.
`

func parseWatchConfig(args []string, stdout, stderr io.Writer) (watchConfig, error) {
	fs := flag.NewFlagSet("hall watch", flag.ContinueOnError)
	var cfg watchConfig
	var token, readToken cli.Secret
	fs.StringVar(&cfg.Hall, "hall", cli.DefaultURL, "the Hall to follow")
	fs.StringVar(&cfg.Brain, "brain", "", "follow one brain (absolute path); every brain when empty")
	fs.StringVar(&cfg.PresenceID, "presence-id", "", "follow one presence: its own join and leave, and its own collisions")
	token.Register(fs, "token", "bearer token, when the Hall asks for one")
	readToken.Register(fs, "read-token", "the Hall's read token (--read-token), sent instead of --token")
	fs.BoolVar(&cfg.JSON, "json", false, "print one JSON object a line instead of sentences")
	fs.BoolVar(&cfg.CollisionsOnly, "collisions-only", false, "print collisions opening and closing only")
	fs.BoolVar(&cfg.ExitOnCollision, "exit-on-collision", false, "exit with status 3 at the first collision (one already open counts)")
	fs.BoolVar(&cfg.ExitOnConflict, "exit-on-conflict", false, "exit with status 4 at the first overlap git predicts will not merge cleanly (one already open counts)")
	if err := parseFlags(fs, watchAbout, args, stdout, stderr); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("watch takes no arguments, got %q", fs.Args())}
	}
	var err error
	if cfg.Token, err = token.Value(); err != nil {
		return cfg, &exitError{code: 2, err: err}
	}
	if rt, err := readToken.Value(); err != nil {
		return cfg, &exitError{code: 2, err: err}
	} else if rt != "" {
		cfg.Token = rt // a read is all watch does
	}
	u, err := url.Parse(cfg.Hall)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--hall %q: want an http:// or https:// URL", cfg.Hall)}
	}
	return cfg, nil
}

// streamURL is the stream address for the config.
func (c watchConfig) streamURL() string {
	q := url.Values{}
	if c.Brain != "" {
		q.Set("brain", c.Brain)
	}
	if c.PresenceID != "" {
		q.Set("presence_id", c.PresenceID)
	}
	if c.CollisionsOnly {
		q.Set("collisions_only", "1")
	}
	u := strings.TrimRight(c.Hall, "/") + "/api/presences/stream"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// runWatch is the watch command.
func runWatch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseWatchConfig(args, stdout, stderr)
	if err != nil {
		return err
	}
	return watch(ctx, cfg, stdout, stderr)
}

// errCollision ends Follow at the first collision under --exit-on-collision.
var errCollision = errors.New("collision")

// errConflict ends Follow at the first conflict under --exit-on-conflict.
var errConflict = errors.New("conflict")

// watch follows the stream until ctx ends, printing each change. The
// client reconnects and resumes by itself; a resync (a snapshot after a
// reconnect the Hall could not resume) is told as the changes it implies,
// so nothing that happened while disconnected goes unprinted.
func watch(ctx context.Context, cfg watchConfig, stdout, stderr io.Writer) error {
	p := &watchPrinter{out: stdout, json: cfg.JSON, cfg: cfg, now: time.Now}
	var view stream.View
	var first string // the collision that ends an --exit-on-collision run
	client := &stream.Client{
		URL:   cfg.streamURL(),
		Token: cfg.Token,
		OnDisconnect: func(err error, wait time.Duration) {
			fmt.Fprintf(stderr, "hall watch: %v; reconnecting in %s\n", err, wait.Round(time.Millisecond))
		},
	}
	err := client.Follow(ctx, func(ev stream.Event) error {
		ch := view.Apply(ev)
		if err := p.print(ev, ch); err != nil {
			return err
		}
		if cfg.ExitOnCollision {
			resp := view.Response()
			switch {
			case len(resp.Collisions) > 0:
				first = describeCollision(resp.Collisions[0])
				return errCollision
			case resp.CollisionsTotal > 0: // a presence's view may count collisions the bound does not list
				first = plural(resp.CollisionsTotal, "collision") + ", none listed"
				return errCollision
			}
		}
		if cfg.ExitOnConflict {
			for _, o := range view.Response().Overlaps {
				if o.Verdict == contract.VerdictConflict {
					first = describeOverlap(o)
					return errConflict
				}
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errCollision):
		return &exitError{code: 3, err: fmt.Errorf("collision: %s", first)}
	case errors.Is(err, errConflict):
		return &exitError{code: 4, err: fmt.Errorf("conflict: %s", first)}
	case err != nil:
		var se *stream.StatusError
		if errors.As(err, &se) && se.Code != "" {
			return fmt.Errorf("watch %s: %s: %s", cfg.Hall, se.Code, se.Detail)
		}
		return fmt.Errorf("watch %s: %w", cfg.Hall, err)
	}
	return nil
}

// watchPrinter turns events into lines: sentences, or JSON objects. The
// lines themselves are told by stream.Teller, as the Hall tells its own
// recent events (GET /api/events).
type watchPrinter struct {
	out    io.Writer
	json   bool
	cfg    watchConfig
	now    func() time.Time
	teller stream.Teller
}

func (p *watchPrinter) print(ev stream.Event, ch stream.Change) error {
	now := p.now()
	var lines []contract.Line
	for _, l := range p.teller.Tell(ev, ch, now) {
		// Sentences leave out updates (a beat is not news to a person) and
		// the snapshot of a resync (its changes are told instead).
		if !p.json && (l.Type == contract.LineUpdate || (l.Type == contract.LineSnapshot && l.Resync)) {
			continue
		}
		if p.cfg.CollisionsOnly && l.Overlap != nil {
			continue // the flag says collisions only
		}
		lines = append(lines, l)
	}

	var b strings.Builder
	for _, l := range lines {
		if p.json {
			j, err := json.Marshal(l)
			if err != nil {
				return fmt.Errorf("encode %s line: %w", l.Type, err)
			}
			b.Write(j)
			b.WriteByte('\n')
			continue
		}
		b.WriteString(now.Format("15:04:05") + " " + p.sentence(l) + "\n")
	}
	_, err := io.WriteString(p.out, b.String())
	return err
}

// sentence says one line in words. Every field an agent or another writer
// chose passes through clean: a record can hold anything.
func (p *watchPrinter) sentence(l contract.Line) string {
	switch l.Type {
	case contract.LineSnapshot:
		s := l.Snapshot
		scope := "all brains"
		switch {
		case p.cfg.PresenceID != "":
			scope = "presence " + p.cfg.PresenceID
		case s.ServedBrain != nil:
			scope = clean(s.ServedBrain.Root())
		}
		if s.Error != "" {
			return fmt.Sprintf("watching %s (%s): %s: %s", clean(p.cfg.Hall), scope, contract.RosterErrorLabel(s.Error), clean(s.Detail))
		}
		if p.cfg.CollisionsOnly {
			return fmt.Sprintf("watching %s (%s): %s", clean(p.cfg.Hall), scope, collisionCount(*s))
		}
		line := fmt.Sprintf("watching %s (%s): %s, %s", clean(p.cfg.Hall), scope,
			plural(len(s.Presences), "presence"), collisionCount(*s))
		if s.OverlapsTotal > 0 {
			line += ", " + plural(s.OverlapsTotal, "overlap")
		}
		return line
	case contract.LineJoin:
		pr := l.Presence
		s := fmt.Sprintf("+ %s joined %s", clean(pr.AgentID), clean(pr.Where()))
		if pr.Theme != "" {
			s += ": " + clean(pr.Theme)
		}
		return s + " (" + pr.PresenceID + ")"
	case contract.LineLeave:
		pr := l.Presence
		return fmt.Sprintf("- %s left %s (%s)", clean(pr.AgentID), clean(pr.Where()), pr.PresenceID)
	case contract.LineCollisionOpened:
		return "! collision " + describeCollision(*l.Collision)
	case contract.LineCollisionChanged:
		return "! collision changed " + describeCollision(*l.Collision)
	case contract.LineCollisionClosed:
		c := l.Collision
		return fmt.Sprintf("= collision closed on %s: %s and %s", clean(c.Brain), clean(c.A.AgentID), clean(c.B.AgentID))
	case contract.LineCollisionUnlisted:
		c := l.Collision
		return fmt.Sprintf("~ collision no longer listed (the Hall lists the first by id) on %s: %s and %s", clean(c.Brain), clean(c.A.AgentID), clean(c.B.AgentID))
	case contract.LineOverlapOpened:
		return "! " + describeOverlap(*l.Overlap)
	case contract.LineOverlapChanged:
		return "! changed: " + describeOverlap(*l.Overlap)
	case contract.LineOverlapClosed:
		o := l.Overlap
		return fmt.Sprintf("= %s closed on %s: %s and %s", o.Verdict, clean(o.Brain), clean(o.A.AgentID), clean(o.B.AgentID))
	case contract.LineRegistryUnreadable:
		return "! registry unreadable, roster dropped: " + clean(l.Detail)
	case contract.LineRegistryReadable:
		return "registry readable again"
	case contract.LineStoreUnreachable:
		return "! store unreachable, roster dropped: " + clean(l.Detail)
	case contract.LineStoreReachable:
		return "store reachable again"
	}
	return l.Type
}

// collisionCount says how many collisions a snapshot counts, and how many
// it lists when the bound left some out.
func collisionCount(s contract.PresencesResponse) string {
	if s.CollisionsTotal > len(s.Collisions) {
		return fmt.Sprintf("%s (%d listed)", plural(s.CollisionsTotal, "collision"), len(s.Collisions))
	}
	return plural(len(s.Collisions), "collision")
}

func describeCollision(c contract.Collision) string {
	return fmt.Sprintf("on %s: %s and %s at %s (%s)", clean(c.Brain), clean(c.A.AgentID), clean(c.B.AgentID),
		clean(c.Place), strings.Join(c.Clauses, ", "))
}

// describeOverlap says an overlap in a line: its verdict, both sides
// (agent, worktree, branch), the files and git's word (contract.OverlapLine).
func describeOverlap(o contract.Overlap) string {
	return "on " + clean(o.Brain) + ": " + clean(contract.OverlapLine("", o))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// clean makes a field safe for a terminal: control characters (escape
// sequences) and bidirectional overrides become "?".
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
}
