package rdd

import "fmt"

// BroadcastReplicated makes v available to every worker, as Broadcast
// does, for a value that every process already holds alike: one the same
// driver code computed from the results of actions, which are the same on
// every process. Nothing crosses processes, so v need not be registered
// for encoding. Under a local master it is Broadcast.
func (sc *Context) BroadcastReplicated(v any) *Broadcast {
	return &Broadcast{sc: sc, id: int(sc.nextBroadcast.Add(1)), value: v}
}

// SetReplicated replaces the value, as Update does, with one that every
// process holds alike (see BroadcastReplicated); nothing crosses
// processes. Do not call it while a job that reads the broadcast runs.
func (b *Broadcast) SetReplicated(v any) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.destroyed {
		return fmt.Errorf("rdd: broadcast %d updated after Destroy", b.id)
	}
	b.value = v
	return nil
}
