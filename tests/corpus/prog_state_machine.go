//go:build ignore

// A state machine with a named state type, constants and a String method.
package main

import "fmt"

type State int

const (
	Idle State = iota
	Running
	Paused
	Stopped
)

func (s State) String() string {
	return [...]string{"Idle", "Running", "Paused", "Stopped"}[s]
}

var transitions = map[State][]State{
	Idle:    {Running},
	Running: {Paused, Stopped},
	Paused:  {Running, Stopped},
}

func (s State) Next(t State) (State, error) {
	for _, allowed := range transitions[s] {
		if allowed == t {
			return t, nil
		}
	}
	return s, fmt.Errorf("cannot go from %v to %v", s, t)
}

func main() {
	s := Idle
	for _, t := range []State{Running, Paused, Idle, Running, Stopped, Running} {
		var err error
		s, err = s.Next(t)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println("now", s)
	}
	fmt.Printf("%v %d %T\n", s, s, s)
}
