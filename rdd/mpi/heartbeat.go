package mpi

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A job's ranks watch each other with UDP heartbeats, beside MPI: rank 0
// hears from every rank and every rank from rank 0, several times a
// second. MPI itself notices a rank whose process ends, but not a host
// that stops answering (powered off, or its link cut): TCP keeps waiting
// on a silent peer for many minutes, and so would the job. When a rank
// has not been heard from for the timeout, the rank that noticed ends the
// job with a message naming the silent rank's host.
//
// SPARKNET_HEARTBEAT sets the timeout (a Go duration such as "10s"; the
// default is DefaultHeartbeatTimeout), or "off" turns the heartbeats off.
// A peer is watched only once a heartbeat from it has arrived, so a
// network that carries MPI but not UDP between the hosts turns the watch
// off (with a warning) instead of ending a healthy job.

// DefaultHeartbeatTimeout is how long a rank may stay silent before the
// job ends.
const DefaultHeartbeatTimeout = 2 * time.Second

// heartbeatEnv names the environment variable that sets the timeout.
const heartbeatEnv = "SPARKNET_HEARTBEAT"

// heartbeatTimeout reads SPARKNET_HEARTBEAT: 0 when the heartbeats are off.
func heartbeatTimeout() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(heartbeatEnv))
	switch strings.ToLower(v) {
	case "":
		return DefaultHeartbeatTimeout, nil
	case "off", "0", "false", "no":
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 100*time.Millisecond {
		return 0, fmt.Errorf("mpi: %s=%q: want a duration of at least 100ms (such as 3s or 10s), or off", heartbeatEnv, v)
	}
	return d, nil
}

// peer is what a rank tells the others about itself.
type peer struct {
	Host  string   `json:"host"`
	Addrs []string `json:"addrs"` // its addresses, without the port
	Port  int      `json:"port"`
	Token uint64   `json:"token,omitempty"` // rank 0's: the job's heartbeats carry it
}

// name is how messages name a rank: its host and addresses.
func (p peer) name(rank int) string {
	addrs := strings.Join(p.Addrs, ", ")
	if addrs == "" {
		return fmt.Sprintf("%s (rank %d)", p.Host, rank)
	}
	return fmt.Sprintf("%s (rank %d, %s)", p.Host, rank, addrs)
}

// localPeer opens the heartbeat socket and describes this rank.
func localPeer() (*net.UDPConn, peer, error) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{})
	if err != nil {
		return nil, peer{}, fmt.Errorf("mpi: heartbeat socket: %w", err)
	}
	host, _ := os.Hostname()
	p := peer{Host: host, Port: conn.LocalAddr().(*net.UDPAddr).Port}
	ifaces, _ := net.Interfaces()
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || !ipn.IP.IsGlobalUnicast() && !ipn.IP.IsPrivate() {
				continue
			}
			if ipn.IP.To4() == nil && ipn.IP.IsLinkLocalUnicast() {
				continue
			}
			p.Addrs = append(p.Addrs, ipn.IP.String())
		}
	}
	return conn, p, nil
}

// heartbeat is one rank's side of the watch.
type heartbeat struct {
	rank     int
	conn     *net.UDPConn
	peers    []peer
	token    uint64
	interval time.Duration
	timeout  time.Duration
	grace    time.Duration                               // how long a peer may take to be heard first
	lost     func(rank int, d time.Duration, msg string) // called once, when a watched peer falls silent

	targets map[int][]*net.UDPAddr // where this rank's heartbeats go
	watched []int                  // the ranks this one watches
	last    []atomic.Int64         // when each rank was last heard (UnixNano), 0: never
	bye     []atomic.Bool          // the rank said it is leaving

	stopOnce sync.Once
	stop     chan struct{}
	done     sync.WaitGroup
}

// Message layout: magic, token, rank, kind.
const (
	hbMagic = "SNHB"
	hbLen   = 4 + 8 + 4 + 1
	hbBeat  = 1
	hbBye   = 2
)

// newHeartbeat prepares rank's watch over the job's peers (indexed by
// rank; peers[0].Token is the job's token).
func newHeartbeat(rank int, conn *net.UDPConn, peers []peer, timeout time.Duration, lost func(int, time.Duration, string)) *heartbeat {
	h := &heartbeat{
		rank: rank, conn: conn, peers: peers, token: peers[0].Token,
		interval: max(timeout/20, 20*time.Millisecond), timeout: timeout, grace: max(4*timeout, 10*time.Second),
		lost: lost, targets: map[int][]*net.UDPAddr{},
		last: make([]atomic.Int64, len(peers)), bye: make([]atomic.Bool, len(peers)),
		stop: make(chan struct{}),
	}
	me := peers[rank]
	addrsOf := func(p peer) []*net.UDPAddr {
		var out []*net.UDPAddr
		if p.Host == me.Host {
			out = append(out, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.Port})
		}
		for _, a := range p.Addrs {
			if ip := net.ParseIP(a); ip != nil {
				out = append(out, &net.UDPAddr{IP: ip, Port: p.Port})
			}
		}
		return out
	}
	if rank == 0 {
		for r := 1; r < len(peers); r++ {
			h.targets[r] = addrsOf(peers[r])
			h.watched = append(h.watched, r)
		}
	} else {
		h.targets[0] = addrsOf(peers[0])
		h.watched = []int{0}
	}
	return h
}

// start begins sending, listening and watching.
func (h *heartbeat) start() {
	h.done.Add(2)
	go h.receive()
	go h.run()
}

// message encodes a heartbeat of the given kind.
func (h *heartbeat) message(kind byte) []byte {
	b := make([]byte, hbLen)
	copy(b, hbMagic)
	binary.LittleEndian.PutUint64(b[4:], h.token)
	binary.LittleEndian.PutUint32(b[12:], uint32(h.rank))
	b[16] = kind
	return b
}

func (h *heartbeat) send(kind byte) {
	msg := h.message(kind)
	for _, addrs := range h.targets {
		for _, a := range addrs {
			h.conn.WriteToUDP(msg, a) // a lost heartbeat is what the watch is for
		}
	}
}

func (h *heartbeat) receive() {
	defer h.done.Done()
	buf := make([]byte, 64)
	for {
		n, _, err := h.conn.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if n != hbLen || string(buf[:4]) != hbMagic || binary.LittleEndian.Uint64(buf[4:]) != h.token {
			continue // not this job's
		}
		r := int(binary.LittleEndian.Uint32(buf[12:]))
		if r < 0 || r >= len(h.last) || r == h.rank {
			continue
		}
		switch buf[16] {
		case hbBeat:
			h.last[r].Store(time.Now().UnixNano())
		case hbBye:
			h.bye[r].Store(true)
		}
	}
}

// run sends a heartbeat every interval and checks the watched peers.
func (h *heartbeat) run() {
	defer h.done.Done()
	started := time.Now()
	warned := map[int]bool{}
	tick := time.NewTicker(h.interval)
	defer tick.Stop()
	for {
		h.send(hbBeat)
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
		now := time.Now()
		for _, r := range h.watched {
			if h.bye[r].Load() {
				continue
			}
			at := h.last[r].Load()
			if at == 0 {
				if !warned[r] && now.Sub(started) > h.grace {
					warned[r] = true
					fmt.Fprintf(os.Stderr, "mpi: rank %d has no heartbeat from %s after %v: UDP between them seems blocked, so a host that stops answering will not end the job (%s=off silences this)\n",
						h.rank, h.peers[r].name(r), h.grace.Round(time.Second), heartbeatEnv)
				}
				continue
			}
			if silent := now.Sub(time.Unix(0, at)); silent > h.timeout {
				msg := fmt.Sprintf("%s has not been heard from for %v: its host is down or cut off from %s; ending the job",
					h.peers[r].name(r), silent.Round(100*time.Millisecond), h.peers[h.rank].Host)
				h.lost(r, silent, msg)
				return
			}
		}
	}
}

// close says goodbye to the peers and stops the watch.
func (h *heartbeat) close() {
	h.stopOnce.Do(func() {
		close(h.stop)
		for i := 0; i < 3; i++ { // UDP may drop one
			h.send(hbBye)
		}
	})
	h.conn.Close()
	h.done.Wait()
}

// newToken returns a random job token.
func newToken() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:])
}

// encodePeers and decodePeer carry a peer through Allgather.
func encodePeer(p peer) []byte {
	b, _ := json.Marshal(p)
	return b
}

func decodePeers(all [][]byte) ([]peer, error) {
	peers := make([]peer, len(all))
	for r, b := range all {
		if err := json.Unmarshal(b, &peers[r]); err != nil {
			return nil, fmt.Errorf("mpi: heartbeat: rank %d's address: %w", r, err)
		}
		peers[r].Addrs = slices.Compact(peers[r].Addrs)
	}
	return peers, nil
}
