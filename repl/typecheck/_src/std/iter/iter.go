// Package iter is the shell's implementation of Go's iter package: the
// interpreter cannot run the compiled one. Its API is Go 1.26's.
//
// The interpreter has no coroutines, so Pull and Pull2 run the sequence
// on a goroutine of their own, handing over one value at a time (through
// channels of any: the interpreter fails to send on a chan V in a
// closure).
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
	p := newPuller()
	yield := func(v V) bool { return p.give(v) }
	next = func() (V, bool) {
		var zero V
		got, ok := p.next(func() { seq(yield) })
		if !ok {
			return zero, false
		}
		v, _ := got.(V)
		return v, true
	}
	return next, p.stop
}

// Pull2 is Pull for sequences of pairs.
func Pull2[K, V any](seq Seq2[K, V]) (next func() (K, V, bool), stop func()) {
	p := newPuller()
	yield := func(k K, v V) bool { return p.give([2]any{k, v}) }
	next = func() (K, V, bool) {
		var k K
		var v V
		got, ok := p.next(func() { seq(yield) })
		if !ok {
			return k, v, false
		}
		kv := got.([2]any)
		k, _ = kv[0].(K)
		v, _ = kv[1].(V)
		return k, v, true
	}
	return next, p.stop
}

// puller runs a sequence on a goroutine of its own, which waits for a
// request before it produces each value. It is not generic: the
// interpreter gets values of a type parameter wrong in closures that
// other goroutines call.
type puller struct {
	started, finished bool
	requests          chan bool // true: produce the next value; false: stop
	values            chan any
	ended             chan outcome // the sequence returned or panicked
}

// outcome is how a pulled sequence ended: returned, or panicked with
// value.
type outcome struct {
	panicked bool
	value    any
}

func newPuller() *puller {
	return &puller{requests: make(chan bool), values: make(chan any), ended: make(chan outcome)}
}

// next returns the next value, running the sequence (run) on its first
// call, and whether there was one.
func (p *puller) next(run func()) (any, bool) {
	if p.finished {
		return nil, false
	}
	if !p.started {
		p.started = true
		go p.loop(run)
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
		return nil, false
	}
}

func (p *puller) loop(run func()) {
	defer func() {
		if r := recover(); r != nil {
			p.ended <- outcome{true, r}
			return
		}
		p.ended <- outcome{}
	}()
	if <-p.requests {
		run()
	}
}

// give hands v over and waits for the next request; it reports whether
// the sequence should go on.
func (p *puller) give(v any) bool {
	p.values <- v
	goOn := <-p.requests // (the interpreter fails on return <-ch)
	return goOn
}

// stop ends the sequence: if it is running, its yield returns false.
func (p *puller) stop() {
	if p.finished {
		return
	}
	p.finished = true
	if p.started {
		p.requests <- false
		<-p.ended
	}
}
