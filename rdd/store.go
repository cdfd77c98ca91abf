package rdd

import (
	"sort"
	"sync"
)

// Store is a worker's own key-value memory that lasts across jobs, for
// state such as a net replica that should stay on the worker that trains
// it. Tasks reach it through TaskContext.Store. In the local engine a
// worker runs one task at a time, so a value kept here is only used by
// one goroutine at a time; the Store itself is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	m     map[string]any
	sizes map[string]int64 // estimated when stored, for values that are not Sizers
	// shared, for a worker's store, lists the memory of the worker's
	// cached partitions, which values that refer to them do not count.
	shared func() []uintptr
}

// Get returns the value stored under key, or nil.
func (s *Store) Get(key string) any {
	v, _ := s.Lookup(key)
	return v
}

// Lookup returns the value stored under key and whether there is one.
func (s *Store) Lookup(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

// Set stores v under key, replacing any earlier value.
func (s *Store) Set(key string, v any) {
	size := s.storedSize(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(key, v, size)
}

// put stores v and its size; s.mu is held.
func (s *Store) put(key string, v any, size int64) {
	if s.m == nil {
		s.m = map[string]any{}
		s.sizes = map[string]int64{}
	}
	s.m[key] = v
	s.sizes[key] = size
}

// storedSize is the size a store records for v: 0 for a Sizer, which is
// asked again whenever the store is measured. Cached partitions that v
// refers to (a model replica holds its partition's samples) are not
// counted: the worker's cache counts them.
func (s *Store) storedSize(v any) int64 {
	if _, ok := v.(Sizer); ok {
		return 0
	}
	var shared []uintptr
	if s.shared != nil {
		shared = s.shared()
	}
	return estimateSizeExcept(v, shared)
}

// Bytes estimates the memory the stored values hold: values with a
// SizeBytes method (Sizer) report it, others are measured when stored.
func (s *Store) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for k, v := range s.m {
		if sz, ok := v.(Sizer); ok {
			n += sz.SizeBytes()
		} else {
			n += s.sizes[k]
		}
	}
	return n
}

// GetOrCreate returns the value under key, first storing create's result
// there if there is none. An error from create is returned and nothing is
// stored.
func (s *Store) GetOrCreate(key string, create func() (any, error)) (any, error) {
	if v, ok := s.Lookup(key); ok {
		return v, nil
	}
	v, err := create()
	if err != nil {
		return nil, err
	}
	size := s.storedSize(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[key]; ok {
		return old, nil
	}
	s.put(key, v, size)
	return v, nil
}

// Delete removes key.
func (s *Store) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	delete(s.sizes, key)
}

// Keys returns the stored keys, sorted.
func (s *Store) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Len is the number of stored keys.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Clear removes every key.
func (s *Store) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m, s.sizes = nil, nil
}
