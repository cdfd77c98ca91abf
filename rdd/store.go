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
	mu sync.Mutex
	m  map[string]any
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]any{}
	}
	s.m[key] = v
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[key]; ok {
		return old, nil
	}
	if s.m == nil {
		s.m = map[string]any{}
	}
	s.m[key] = v
	return v, nil
}

// Delete removes key.
func (s *Store) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
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
	s.m = nil
}
