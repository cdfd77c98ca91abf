package jupyter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// Client is the front-end side of the protocol, as Jupyter's clients
// speak it: it connects to a kernel's channels, signs what it sends and
// checks what it receives. Tests and benchmarks drive kernels with it.
type Client struct {
	Info    ConnectionInfo
	Session string

	codec   codec
	ctx     context.Context
	cancel  context.CancelFunc
	sockets map[Channel]zmq4.Socket
	recv    map[Channel]chan *Message
	sendMu  sync.Mutex
	wg      sync.WaitGroup
}

// Dial connects to the kernel of info.
func Dial(info ConnectionInfo) (*Client, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		Info:    info,
		Session: NewID(),
		codec:   codec{mac: info.newMAC()},
		ctx:     ctx,
		cancel:  cancel,
		sockets: map[Channel]zmq4.Socket{},
		recv:    map[Channel]chan *Message{},
	}
	id := zmq4.SocketIdentity(c.Session)
	opts := []zmq4.Option{zmq4.WithID(id), zmq4.WithTimeout(sendTimeout), zmq4.WithDialerRetry(50 * time.Millisecond), zmq4.WithDialerMaxRetries(100)}
	dial := []struct {
		ch   Channel
		port int
		new  func(context.Context, ...zmq4.Option) zmq4.Socket
	}{
		{Shell, info.ShellPort, zmq4.NewDealer},
		{Control, info.ControlPort, zmq4.NewDealer},
		{Stdin, info.StdinPort, zmq4.NewDealer},
		{IOPub, info.IOPubPort, zmq4.NewSub},
		{HB, info.HBPort, zmq4.NewReq},
	}
	for _, d := range dial {
		sock := d.new(ctx, opts...)
		if err := sock.Dial(info.endpoint(d.port)); err != nil {
			sock.Close()
			c.Close()
			return nil, fmt.Errorf("jupyter: connecting to the %s channel: %w", d.ch, err)
		}
		c.sockets[d.ch] = sock
	}
	if err := c.sockets[IOPub].SetOption(zmq4.OptionSubscribe, ""); err != nil {
		c.Close()
		return nil, err
	}
	for _, ch := range []Channel{Shell, Control, Stdin, IOPub} {
		c.recv[ch] = make(chan *Message, 4096)
		c.wg.Add(1)
		go c.read(ch)
	}
	return c, nil
}

func (c *Client) read(ch Channel) {
	defer c.wg.Done()
	for {
		zm, err := c.sockets[ch].Recv()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		frames := zm.Frames
		m, err := c.codec.decode(frames)
		if err != nil {
			continue
		}
		select {
		case c.recv[ch] <- m:
		case <-c.ctx.Done():
			return
		}
	}
}

// Close disconnects.
func (c *Client) Close() error {
	c.cancel()
	for _, s := range c.sockets {
		s.Close()
	}
	c.wg.Wait()
	return nil
}

// NewMessage returns a request of type msgType with content, from the
// client's session.
func (c *Client) NewMessage(msgType string, content any) (*Message, error) {
	body, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	return &Message{
		Header:  Header{MsgID: NewID(), Session: c.Session, Username: "client", Date: now(), MsgType: msgType, Version: ProtocolVersion},
		Content: body,
	}, nil
}

// Frames signs and encodes m as the frames a DEALER sends.
func (c *Client) Frames(m *Message) ([][]byte, error) { return c.codec.encode(m) }

// SendFrames sends raw frames on a channel.
func (c *Client) SendFrames(ch Channel, frames [][]byte) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.sockets[ch].SendMulti(zmq4.NewMsgFrom(frames...))
}

// Send sends a request on the shell, control or stdin channel and
// returns it.
func (c *Client) Send(ch Channel, msgType string, content any) (*Message, error) {
	m, err := c.NewMessage(msgType, content)
	if err != nil {
		return nil, err
	}
	frames, err := c.Frames(m)
	if err != nil {
		return nil, err
	}
	return m, c.SendFrames(ch, frames)
}

// ErrTimeout is returned by Recv when nothing came in time.
var ErrTimeout = errors.New("jupyter: no message in time")

// Recv returns the next message received on a channel (shell, control,
// stdin or iopub).
func (c *Client) Recv(ch Channel, timeout time.Duration) (*Message, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m := <-c.recv[ch]:
		return m, nil
	case <-t.C:
		return nil, fmt.Errorf("%w: %s channel, %s", ErrTimeout, ch, timeout)
	}
}

// Ping sends a heartbeat and waits for its echo.
func (c *Client) Ping(timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		hb := c.sockets[HB]
		if err := hb.Send(zmq4.NewMsgString("ping")); err != nil {
			done <- err
			return
		}
		m, err := hb.Recv()
		if err == nil && string(m.Bytes()) != "ping" {
			err = fmt.Errorf("jupyter: heartbeat echoed %q", m.Bytes())
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("%w: heartbeat, %s", ErrTimeout, timeout)
	}
}

// WaitReady sends kernel_info requests until the kernel answers one and
// its iopub messages arrive (a subscription takes a moment to start),
// and returns the reply.
func (c *Client) WaitReady(timeout time.Duration) (*Message, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		req, err := c.Send(Shell, "kernel_info_request", map[string]any{})
		if err != nil {
			return nil, err
		}
		reply, err := c.reply(Shell, req, 2*time.Second)
		if err != nil {
			continue
		}
		// The idle status of this request on iopub shows the
		// subscription works.
		wait := time.Now().Add(200 * time.Millisecond)
		for time.Now().Before(wait) {
			m, err := c.Recv(IOPub, time.Until(wait))
			if err != nil {
				break
			}
			if m.Parent != nil && m.Parent.MsgID == req.Header.MsgID && m.Header.MsgType == "status" {
				c.drain(IOPub)
				return reply, nil
			}
		}
	}
	return nil, fmt.Errorf("%w: the kernel was not ready after %s", ErrTimeout, timeout)
}

// drain drops the messages waiting on a channel.
func (c *Client) drain(ch Channel) {
	for {
		select {
		case <-c.recv[ch]:
		default:
			return
		}
	}
}

// reply waits for the reply to req on a channel, dropping others.
func (c *Client) reply(ch Channel, req *Message, timeout time.Duration) (*Message, error) {
	deadline := time.Now().Add(timeout)
	for {
		m, err := c.Recv(ch, time.Until(deadline))
		if err != nil {
			return nil, err
		}
		if m.Parent != nil && m.Parent.MsgID == req.Header.MsgID {
			return m, nil
		}
	}
}

// Request sends a request and waits for its reply.
func (c *Client) Request(ch Channel, msgType string, content any, timeout time.Duration) (*Message, error) {
	req, err := c.Send(ch, msgType, content)
	if err != nil {
		return nil, err
	}
	return c.reply(ch, req, timeout)
}

// Execution is what an execute request produced: the reply and the
// iopub messages whose parent it was, up to the idle status.
type Execution struct {
	Request *Message
	Reply   *Message
	IOPub   []*Message
	// Other holds the iopub messages of other requests that came
	// meanwhile (the output of a goroutine an earlier cell started).
	Other []*Message
}

// Execute runs code and waits until the kernel is idle again.
func (c *Client) Execute(code string, timeout time.Duration) (*Execution, error) {
	req, err := c.Send(Shell, "execute_request", map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true})
	if err != nil {
		return nil, err
	}
	return c.Collect(req, timeout)
}

// Collect waits for the reply to an execute request sent with Send and
// for the idle status that ends its iopub messages.
func (c *Client) Collect(req *Message, timeout time.Duration) (*Execution, error) {
	ex := &Execution{Request: req}
	t := time.NewTimer(timeout)
	defer t.Stop()
	idle := false
	for !idle || ex.Reply == nil {
		select {
		case m := <-c.recv[Shell]:
			if m.Parent != nil && m.Parent.MsgID == req.Header.MsgID {
				ex.Reply = m
			}
		case m := <-c.recv[IOPub]:
			if m.Parent == nil || m.Parent.MsgID != req.Header.MsgID {
				ex.Other = append(ex.Other, m)
				continue
			}
			ex.IOPub = append(ex.IOPub, m)
			if m.Header.MsgType == "status" && string(m.Content) == `{"execution_state":"idle"}` {
				idle = true
			}
		case <-t.C:
			return ex, fmt.Errorf("%w: execute_request, %s", ErrTimeout, timeout)
		}
	}
	return ex, nil
}
