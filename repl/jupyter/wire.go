package jupyter

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// ProtocolVersion is the version of the Jupyter messaging protocol the
// kernel speaks.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities of a message from its
// signed parts.
const delimiter = "<IDS|MSG>"

// Header is the header of a message, and of its parent.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one message of the protocol.
type Message struct {
	// Identities route a reply on a ROUTER socket to the client that
	// sent the request.
	Identities [][]byte
	Header     Header
	// Parent is the header of the request the message answers, or nil.
	Parent   *Header
	Metadata map[string]any
	Content  json.RawMessage
	Buffers  [][]byte
}

// Decode decodes the message's content into v.
func (m *Message) Decode(v any) error {
	if len(m.Content) == 0 {
		return nil
	}
	if err := json.Unmarshal(m.Content, v); err != nil {
		return fmt.Errorf("jupyter: the content of %s %s: %v", m.Header.MsgType, m.Header.MsgID, err)
	}
	return nil
}

// NewID returns a new random message or session id.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // a version 4 UUID
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// now returns the time in the ISO 8601 form that message dates use.
func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z") }

// ErrSignature is the error of a message whose signature is wrong.
var ErrSignature = errors.New("jupyter: the message's signature is wrong (was it signed with this kernel's key?)")

// ErrReplay is the error of a message whose signature was seen before.
var ErrReplay = errors.New("jupyter: the message's signature was used before (a replayed message)")

// codec signs, checks, encodes and decodes messages.
type codec struct {
	mac func() hash.Hash // nil: messages are not signed

	mu   sync.Mutex
	seen map[string]bool // signatures received, against replays
	fifo []string
}

// maxSeen bounds the signatures kept against replays.
const maxSeen = 1 << 16

func (c *codec) sign(parts ...[]byte) []byte {
	if c.mac == nil {
		return nil
	}
	h := c.mac()
	for _, p := range parts {
		h.Write(p)
	}
	sum := h.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// encode returns the frames of m, signed.
func (c *codec) encode(m *Message) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, err
	}
	parent := []byte("{}")
	if m.Parent != nil {
		if parent, err = json.Marshal(m.Parent); err != nil {
			return nil, err
		}
	}
	meta := []byte("{}")
	if len(m.Metadata) > 0 {
		if meta, err = json.Marshal(m.Metadata); err != nil {
			return nil, err
		}
	}
	content := []byte(m.Content)
	if len(content) == 0 {
		content = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, []byte(delimiter), c.sign(header, parent, meta, content), header, parent, meta, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// decode checks the signature of the frames of a message and decodes it.
func (c *codec) decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && !bytes.Equal(frames[i], []byte(delimiter)) {
		i++
	}
	if i == len(frames) {
		return nil, fmt.Errorf("jupyter: a message of %d frames without the delimiter %q", len(frames), delimiter)
	}
	if len(frames) < i+6 {
		return nil, fmt.Errorf("jupyter: a message with %d frames after the delimiter; want at least 5 (signature, header, parent header, metadata, content)", len(frames)-i-1)
	}
	sig, parts := frames[i+1], frames[i+2:i+6]
	if c.mac != nil {
		want := c.sign(parts...)
		if !hmac.Equal(want, sig) {
			return nil, ErrSignature
		}
		if err := c.remember(string(sig)); err != nil {
			return nil, err
		}
	}
	m := &Message{Identities: frames[:i], Buffers: frames[i+6:]}
	if err := json.Unmarshal(parts[0], &m.Header); err != nil {
		return nil, fmt.Errorf("jupyter: a message header: %v", err)
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("jupyter: a message header without msg_type")
	}
	var parent Header
	if err := json.Unmarshal(parts[1], &parent); err != nil {
		return nil, fmt.Errorf("jupyter: the parent header of %s: %v", m.Header.MsgType, err)
	}
	if parent.MsgID != "" {
		m.Parent = &parent
	}
	if err := json.Unmarshal(parts[2], &m.Metadata); err != nil {
		return nil, fmt.Errorf("jupyter: the metadata of %s: %v", m.Header.MsgType, err)
	}
	if !json.Valid(parts[3]) {
		return nil, fmt.Errorf("jupyter: the content of %s is not JSON", m.Header.MsgType)
	}
	m.Content = json.RawMessage(parts[3])
	return m, nil
}

// remember records a signature and refuses one seen before.
func (c *codec) remember(sig string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[sig] {
		return ErrReplay
	}
	c.seen[sig] = true
	c.fifo = append(c.fifo, sig)
	if len(c.fifo) > maxSeen {
		delete(c.seen, c.fifo[0])
		c.fifo = c.fifo[1:]
	}
	return nil
}
