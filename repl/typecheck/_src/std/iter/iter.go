// Package iter is the shell's implementation of Go's iter package: the
// interpreter cannot run the compiled one. Its API is Go 1.26's.
//
// The interpreter has no coroutines, so Pull and Pull2 run the sequence
// on a goroutine of their own, handing over one value at a time.
package iter

// Seq is a sequence of values: it calls yield with each in turn, and
// stops when yield returns false.
type Seq[V any] func(yield func(V) bool)

// Seq2 is a sequence of pairs of values.
type Seq2[K, V any] func(yield func(K, V) bool)

// Pull turns the push sequence seq into a pull one: next returns the
// next value and whether there was one; stop ends the sequence early.
// A panic in seq comes out of the call of next that was waiting.
func Pull[V any](seq Seq[V]) (next func() (V, bool), stop func()) {
	p := &puller[V]{requests: make(chan bool), values: make(chan V), ended: make(chan outcome)}
	p.run = func() {
		seq(func(v V) bool { return p.give(v) })
	}
	return p.next, p.stop
}

// Pull2 is Pull for sequences of pairs.
func Pull2[K, V any](seq Seq2[K, V]) (next func() (K, V, bool), stop func()) {
	p := &puller[pair[K, V]]{requests: make(chan bool), values: make(chan pair[K, V]), ended: make(chan outcome)}
	p.run = func() {
		seq(func(k K, v V) bool { return p.give(pair[K, V]{k, v}) })
	}
	next = func() (K, V, bool) {
		kv, ok := p.next()
		return kv.k, kv.v, ok
	}
	return next, p.stop
}

type pair[K, V any] struct {
	k K
	v V
}

// puller runs a sequence on a goroutine of its own, which waits for a
// request before it produces each value.
type puller[V any] struct {
	run               func()
	started, finished bool
	requests          chan bool // true: produce the next value; false: stop
	values            chan V
	ended             chan outcome // the sequence returned or panicked
}

type outcome struct {
	panicked bool
	value    any
}

func (p *puller[V]) next() (V, bool) {
	var zero V
	if p.finished {
		return zero, false
	}
	if !p.started {
		p.started = true
		go p.loop()
	}
	p.requests <- true
	select {
	case v := <-p.values:
		return v, true
	case o := <-p.ended:
		p.finished = true
		if o.panicked {
			panic(o.value)
		}
		return zero, false
	}
}

func (p *puller[V]) loop() {
	defer func() {
		if r := recover(); r != nil {
			p.ended <- outcome{true, r}
			return
		}
		p.ended <- outcome{}
	}()
	if <-p.requests {
		p.run()
	}
}

// give hands v over and waits for the next request; it reports whether
// the sequence should go on.
func (p *puller[V]) give(v V) bool {
	p.values <- v
	return <-p.requests
}

// stop ends the sequence: if it is running, its yield returns false.
func (p *puller[V]) stop() {
	if p.finished {
		return
	}
	p.finished = true
	if p.started {
		p.requests <- false
		<-p.ended
	}
}
