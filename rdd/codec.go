package rdd

import (
	"bytes"
	"encoding/gob"
	"fmt"

	"github.com/sparknet-go/sparknet/data"
)

func init() {
	for _, v := range []any{
		[]any(nil), Pair{}, optional{}, block{}, []block(nil),
		mapStatus{}, shuffleLost{}, keySample{}, ranked{}, []ranked(nil), [][]any(nil), map[any]int(nil), []int(nil),
		data.Sample{}, (*data.Samples)(nil),
		map[string]any(nil), []float32(nil), []float64(nil), []string(nil), [][]float32(nil),
	} {
		gob.Register(v)
	}
}

// Register records a concrete type that crosses processes inside an any
// (an element, a task result or a broadcast value) under an SPMD engine,
// as encoding/gob's Register does. Common types and package data's are
// registered already. A type with MarshalBinary and UnmarshalBinary
// methods (such as a weight collection) travels in that form.
func Register(value any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("rdd: Register(%T): %v", value, v)
		}
	}()
	gob.Register(value)
	return nil
}

// envelope carries a value of any type through gob.
type envelope struct{ V any }

// encodeValue encodes v for another process.
func encodeValue(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(envelope{v}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeValue decodes what encodeValue wrote.
func decodeValue(b []byte) (any, error) {
	var e envelope
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&e); err != nil {
		return nil, err
	}
	return e.V, nil
}
