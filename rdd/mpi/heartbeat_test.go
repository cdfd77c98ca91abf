package mpi

import (
	"net"
	"strings"
	"testing"
	"time"
)

// watchers starts the heartbeats of n ranks on this machine; lost
// receives what each rank's watch reports.
func watchers(t *testing.T, n int, timeout time.Duration) ([]*heartbeat, chan string) {
	t.Helper()
	lost := make(chan string, 4*n)
	peers := make([]peer, n)
	conns := make([]*net.UDPConn, n)
	for r := range peers {
		conn, p, err := localPeer()
		if err != nil {
			t.Skip("no UDP socket:", err)
		}
		p.Host = "host" + string(rune('0'+r)) // as if on n hosts: no loopback shortcut
		p.Addrs = []string{"127.0.0.1"}
		peers[r] = p
		conns[r] = conn
	}
	peers[0].Token = newToken()
	hbs := make([]*heartbeat, n)
	for r := range hbs {
		r := r
		hbs[r] = newHeartbeat(r, conns[r], peers, timeout, func(silent int, d time.Duration, msg string) {
			lost <- msg
		})
		hbs[r].start()
		t.Cleanup(hbs[r].close)
	}
	return hbs, lost
}

// silence stops h's heartbeats without a goodbye, as when its host's
// link is cut.
func silence(h *heartbeat) { h.stopOnce.Do(func() { close(h.stop) }) }

func TestHeartbeatNamesTheSilentHost(t *testing.T) {
	hbs, lost := watchers(t, 3, 300*time.Millisecond)
	time.Sleep(200 * time.Millisecond) // every rank has been heard
	select {
	case msg := <-lost:
		t.Fatalf("a healthy job reported: %s", msg)
	default:
	}
	// Rank 2 stops answering without a goodbye, as a host whose link is
	// cut: stopping its ticker is enough.
	start := time.Now()
	silence(hbs[2])
	select {
	case msg := <-lost:
		if !strings.Contains(msg, "host2 (rank 2, 127.0.0.1) has not been heard from for") || !strings.Contains(msg, "cut off from host0") {
			t.Errorf("message %q does not name host2 as silent, seen from host0", msg)
		}
		t.Logf("noticed after %v: %s", time.Since(start).Round(time.Millisecond), msg)
	case <-time.After(5 * time.Second):
		t.Fatal("rank 0 did not notice rank 2's silence")
	}
}

func TestHeartbeatRankZeroSilent(t *testing.T) {
	hbs, lost := watchers(t, 3, 300*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	silence(hbs[0])
	for i := 0; i < 2; i++ { // ranks 1 and 2 both notice
		select {
		case msg := <-lost:
			if !strings.HasPrefix(msg, "host0 (rank 0, 127.0.0.1) has not been heard from") {
				t.Errorf("message %q does not name host0", msg)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the other ranks did not notice rank 0's silence")
		}
	}
}

func TestHeartbeatGoodbye(t *testing.T) {
	hbs, lost := watchers(t, 3, 300*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	hbs[1].close() // a rank that finishes says goodbye
	hbs[0].close()
	time.Sleep(time.Second)
	select {
	case msg := <-lost:
		t.Fatalf("ranks that left in order were reported: %s", msg)
	default:
	}
}

func TestHeartbeatOtherJobsIgnored(t *testing.T) {
	hbs, lost := watchers(t, 2, 300*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	// A heartbeat of another job (another token) to rank 0 does not keep
	// a silent rank 1 alive.
	msg := hbs[1].message(hbBeat)
	msg[4]++ // another token
	silence(hbs[1])
	stop := time.After(2 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case got := <-lost:
			if !strings.Contains(got, "host1") {
				t.Errorf("message %q does not name host1", got)
			}
			return
		case <-tick.C:
			for _, a := range hbs[1].targets[0] {
				hbs[1].conn.WriteToUDP(msg, a)
			}
		case <-stop:
			t.Fatal("another job's heartbeats kept a silent rank alive")
		}
	}
}

func TestHeartbeatTimeoutSetting(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want time.Duration
		err  string
	}{
		{"", DefaultHeartbeatTimeout, ""},
		{"off", 0, ""},
		{"10s", 10 * time.Second, ""},
		{"1ms", 0, "at least 100ms"},
		{"soon", 0, `SPARKNET_HEARTBEAT="soon"`},
	} {
		t.Setenv(heartbeatEnv, tc.v)
		got, err := heartbeatTimeout()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.v, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.v, got, err, tc.want)
		}
	}
}
