package thread

import (
	"slices"
	"testing"
)

// TestSnapshotLocks checks what a thread owns and waits for: a monitor
// it waits on in Object.wait, or is blocked re-entering, was released
// although a lower frame still shows it locked; a synchronizer it holds
// stays owned while it parks on another.
func TestSnapshotLocks(t *testing.T) {
	mailbox := Lock{Kind: LockMonitor, Class: "demo.Mailbox", ID: 0x10}
	guard := Lock{Kind: LockMonitor, Class: "demo.Guard", ID: 0x20}
	sync := Lock{Kind: LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x30}
	other := Lock{Kind: LockSynchronizer, Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", ID: 0x40}
	waiter := Snapshot{
		Frames: []Frame{{Class: "java.lang.Object", Method: "wait0", Line: LineNative}, {Class: "demo.Box", Method: "take", Line: 12}},
		Locks: []LockUse{
			{Lock: mailbox, Action: WaitsOn, Frame: 0},
			{Lock: mailbox, Action: Holds, Frame: 1},
			{Lock: guard, Action: Holds, Frame: 1},
			{Lock: guard, Action: Holds, Frame: 1},
		},
	}
	if !waiter.InObjectWait() || waiter.Owns(mailbox) || !waiter.Owns(guard) || len(waiter.Waits()) != 0 {
		t.Errorf("waiter: in wait %v, owns mailbox %v, owns guard %v, waits %+v", waiter.InObjectWait(), waiter.Owns(mailbox), waiter.Owns(guard), waiter.Waits())
	}
	if got := waiter.OwnedLocks(); !slices.Equal(got, []Lock{guard}) {
		t.Errorf("waiter owns %+v, want the guard once", got)
	}
	parked := Snapshot{Locks: []LockUse{{Lock: other, Action: Parks, Frame: -1}, {Lock: sync, Action: Holds, Frame: -1}}}
	if parked.InObjectWait() || !parked.Owns(sync) || parked.Owns(other) {
		t.Errorf("parked: owns %+v", parked.OwnedLocks())
	}
	if w := parked.Waits(); len(w) != 1 || w[0].Lock != other {
		t.Errorf("parked waits for %+v, want %+v", w, other)
	}
}
