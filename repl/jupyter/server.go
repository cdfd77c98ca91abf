package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// Channel names a kernel's channel.
type Channel string

// The channels of a kernel.
const (
	Shell   Channel = "shell"
	Control Channel = "control"
	IOPub   Channel = "iopub"
	Stdin   Channel = "stdin"
	HB      Channel = "hb"
)

// Server is the kernel side of the protocol: it listens on the five
// channels of a connection file, checks the signature of every message,
// answers heartbeats, and passes requests from the shell channel (one
// at a time) and the control channel (beside them) to a handler.
type Server struct {
	// Info is the connection, with the ports the server listens on.
	Info ConnectionInfo
	// Session is the kernel's session id, in the header of every message
	// it sends.
	Session string

	codec   codec
	log     *log.Logger
	ctx     context.Context
	cancel  context.CancelFunc
	sockets map[Channel]zmq4.Socket
	sendMu  map[Channel]*sync.Mutex
	inputs  chan *Message // input_reply messages from the stdin channel
	shellQ  chan *Message
	backlog []*Message // shell requests taken from shellQ while aborting
	wg      sync.WaitGroup
	inputMu sync.Mutex
}

// sendTimeout bounds a send to a client that does not read.
const sendTimeout = 10 * time.Second

// Listen starts listening on the channels of info. A port of 0 gets a free
// port, which Server.Info then holds. logw receives the kernel's log: refused
// messages and protocol errors; nil means none.
func Listen(info ConnectionInfo, logw io.Writer) (*Server, error) {
	if logw == nil {
		logw = io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		Info:    info,
		Session: NewID(),
		codec:   codec{mac: info.newMAC()},
		log:     log.New(logw, "sparknet kernel: ", log.LstdFlags),
		ctx:     ctx,
		cancel:  cancel,
		sockets: map[Channel]zmq4.Socket{},
		sendMu:  map[Channel]*sync.Mutex{},
		inputs:  make(chan *Message, 8),
		shellQ:  make(chan *Message, 1024),
	}
	zlog := log.New(logw, "sparknet kernel: zmq: ", log.LstdFlags)
	opts := []zmq4.Option{zmq4.WithLogger(zlog), zmq4.WithTimeout(sendTimeout)}
	makers := []struct {
		ch   Channel
		port *int
		new  func(context.Context, ...zmq4.Option) zmq4.Socket
	}{
		{Shell, &s.Info.ShellPort, zmq4.NewRouter},
		{Control, &s.Info.ControlPort, zmq4.NewRouter},
		{Stdin, &s.Info.StdinPort, zmq4.NewRouter},
		{IOPub, &s.Info.IOPubPort, zmq4.NewPub},
		{HB, &s.Info.HBPort, zmq4.NewRep},
	}
	for _, m := range makers {
		sock := m.new(ctx, opts...)
		ep := s.Info.endpoint(*m.port)
		if err := sock.Listen(ep); err != nil {
			sock.Close()
			s.Close()
			return nil, fmt.Errorf("jupyter: the %s channel cannot listen on %s: %v%s", m.ch, ep, rootCause(err), inUseHint(err))
		}
		if *m.port == 0 && s.Info.Transport == "tcp" {
			if a, ok := sock.Addr().(*net.TCPAddr); ok {
				*m.port = a.Port
			}
		}
		s.sockets[m.ch] = sock
		s.sendMu[m.ch] = &sync.Mutex{}
	}
	return s, nil
}

// rootCause strips the wrapping of a listen error down to the system's words.
func rootCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

func inUseHint(err error) string {
	if strings.Contains(err.Error(), "address already in use") {
		return " (another process, perhaps another kernel started with the same connection file, uses the port; start the kernel with a new connection file)"
	}
	return ""
}

// Close stops listening. It is safe to call more than once.
func (s *Server) Close() error {
	s.cancel()
	for _, sock := range s.sockets {
		sock.Close()
	}
	s.wg.Wait()
	return nil
}

// Logf writes a line to the kernel's log.
func (s *Server) Logf(format string, args ...any) { s.log.Printf(format, args...) }

// A Request is a message from a client on the shell or control channel.
type Request struct {
	*Message
	Channel Channel
	srv     *Server
}

// Type is the request's message type, "execute_request" say.
func (r *Request) Type() string { return r.Header.MsgType }

// Reply sends the reply to the request: its type is the request's with
// _reply for _request.
func (r *Request) Reply(content any) error {
	typ := strings.TrimSuffix(r.Type(), "_request") + "_reply"
	return r.srv.send(r.Channel, r.Identities, &r.Header, typ, content, nil)
}

// Publish sends a message on the iopub channel as an effect of the
// request.
func (r *Request) Publish(msgType string, content any) error {
	return r.srv.Publish(&r.Header, msgType, content)
}

// Server returns the server the request came to.
func (r *Request) Server() *Server { return r.srv }

// Publish sends a message on the iopub channel with parent as its parent
// header (nil for none).
func (s *Server) Publish(parent *Header, msgType string, content any) error {
	return s.send(IOPub, [][]byte{[]byte(msgType)}, parent, msgType, content, nil)
}

// send signs and sends a message on a channel.
func (s *Server) send(ch Channel, ids [][]byte, parent *Header, msgType string, content any, meta map[string]any) error {
	body, err := json.Marshal(content)
	if err != nil {
		return fmt.Errorf("jupyter: encoding %s: %w", msgType, err)
	}
	m := &Message{
		Identities: ids,
		Header:     Header{MsgID: NewID(), Session: s.Session, Username: "kernel", Date: now(), MsgType: msgType, Version: ProtocolVersion},
		Parent:     parent,
		Metadata:   meta,
		Content:    body,
	}
	frames, err := s.codec.encode(m)
	if err != nil {
		return fmt.Errorf("jupyter: encoding %s: %w", msgType, err)
	}
	mu := s.sendMu[ch]
	mu.Lock()
	defer mu.Unlock()
	if err := s.sockets[ch].SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		return fmt.Errorf("jupyter: sending %s on %s: %w", msgType, ch, err)
	}
	return nil
}

// Handler answers requests. The server calls it for one shell request
// at a time, and for control requests beside them; it publishes the
// kernel's status, busy then idle, around each call.
type Handler func(r *Request)

// Serve reads requests and passes them to h until ctx is done or Close is
// called. Messages with a wrong signature or a broken form are refused
// with a line in the log; they never stop the server.
func (s *Server) Serve(ctx context.Context, h Handler) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
		case <-s.ctx.Done():
		}
		stop()
	}()
	s.wg.Add(3)
	go s.heartbeat()
	go s.readLoop(Stdin, func(m *Message) {
		if m.Header.MsgType != "input_reply" {
			s.Logf("stdin channel: unexpected %s ignored", m.Header.MsgType)
			return
		}
		select {
		case s.inputs <- m:
		default:
			s.Logf("stdin channel: an input_reply nobody asked for ignored")
		}
	})
	go s.readLoop(Shell, func(m *Message) {
		select {
		case s.shellQ <- m:
		case <-s.ctx.Done():
		}
	})
	controlQ := make(chan *Message, 64)
	s.wg.Add(1)
	go s.readLoop(Control, func(m *Message) {
		select {
		case controlQ <- m:
		case <-s.ctx.Done():
		}
	})
	s.Publish(nil, "status", map[string]string{"execution_state": "starting"})
	go func() {
		for {
			select {
			case m := <-controlQ:
				s.handle(h, &Request{Message: m, Channel: Control, srv: s})
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		var m *Message
		if len(s.backlog) > 0 {
			m, s.backlog = s.backlog[0], s.backlog[1:]
		} else {
			select {
			case m = <-s.shellQ:
			case <-ctx.Done():
				return nil
			}
		}
		s.handle(h, &Request{Message: m, Channel: Shell, srv: s})
		if ctx.Err() != nil {
			return nil
		}
	}
}

// handle runs h on r between busy and idle.
func (s *Server) handle(h Handler, r *Request) {
	s.Publish(&r.Header, "status", map[string]string{"execution_state": "busy"})
	defer s.Publish(&r.Header, "status", map[string]string{"execution_state": "idle"})
	defer func() {
		if p := recover(); p != nil {
			s.Logf("%s %s: internal error: %v", r.Channel, r.Type(), p)
			r.Reply(map[string]any{"status": "error", "ename": "KernelError", "evalue": fmt.Sprint(p), "traceback": []string{fmt.Sprint(p)}})
		}
	}()
	h(r)
}

// AbortQueued answers the execute requests waiting on the shell channel
// with status "aborted", as kernels do after an execution fails with
// stop_on_error, so that a run of all cells stops at the failure. Other
// waiting requests are kept.
func (s *Server) AbortQueued() {
	for {
		select {
		case m := <-s.shellQ:
			s.backlog = append(s.backlog, m)
			continue
		default:
		}
		break
	}
	kept := s.backlog[:0]
	for _, m := range s.backlog {
		if m.Header.MsgType != "execute_request" {
			kept = append(kept, m)
			continue
		}
		r := &Request{Message: m, Channel: Shell, srv: s}
		s.Publish(&r.Header, "status", map[string]string{"execution_state": "busy"})
		r.Reply(map[string]any{"status": "aborted"})
		s.Publish(&r.Header, "status", map[string]string{"execution_state": "idle"})
	}
	s.backlog = kept
}

// readLoop reads messages from a ROUTER channel and passes the valid
// ones to f.
func (s *Server) readLoop(ch Channel, f func(*Message)) {
	defer s.wg.Done()
	sock := s.sockets[ch]
	for {
		zm, err := sock.Recv()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			s.Logf("%s channel: %v", ch, err)
			// A broken connection: its reader ends; go on with the others.
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		m, err := s.codec.decode(zm.Frames)
		if err != nil {
			s.Logf("%s channel: message refused: %v", ch, err)
			continue
		}
		f(m)
	}
}

// heartbeat echoes every heartbeat ping.
func (s *Server) heartbeat() {
	defer s.wg.Done()
	sock := s.sockets[HB]
	for {
		m, err := sock.Recv()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		if err := sock.Send(m); err != nil && s.ctx.Err() == nil {
			s.Logf("heartbeat: %v", err)
		}
	}
}

// ErrNoStdin is returned by Input when the request does not allow input.
var ErrNoStdin = errors.New("jupyter: the front end does not accept input requests (allow_stdin is false)")

// Input asks the client that sent parent for a line of input on the stdin
// channel and waits for the reply, or for ctx to end.
func (s *Server) Input(ctx context.Context, parent *Message, prompt string, password bool) (string, error) {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	for { // drop replies to earlier requests that were given up
		select {
		case <-s.inputs:
			continue
		default:
		}
		break
	}
	if err := s.send(Stdin, parent.Identities, &parent.Header, "input_request", map[string]any{"prompt": prompt, "password": password}, nil); err != nil {
		return "", err
	}
	select {
	case m := <-s.inputs:
		var c struct {
			Value string `json:"value"`
		}
		if err := m.Decode(&c); err != nil {
			return "", err
		}
		return c.Value, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-s.ctx.Done():
		return "", errors.New("jupyter: the kernel is shutting down")
	}
}
