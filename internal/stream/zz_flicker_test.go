package stream_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

func TestZZFlicker(t *testing.T) {
	th := newTestHall(t, stream.Config{})
	f := follow(t, th.srv.URL, "")
	f.next(t, "snapshot")
	for i := 0; i < 300; i++ {
		if _, err := th.svc.Beat(context.Background(), presence.Beat{AgentID: fmt.Sprintf("a-%d", i), Brain: "/srv/f"}); err != nil {
			t.Fatal(err)
		}
		th.hub.Snapshot(context.Background())
	}
	leaves := 0
	for {
		select {
		case ev := <-f.events:
			if ev.Diff != nil {
				leaves += len(ev.Diff.Leaves)
			}
			continue
		default:
		}
		break
	}
	t.Logf("leaves seen: %d", leaves)
	if leaves > 0 {
		t.Errorf("%d spurious leaves", leaves)
	}
}
