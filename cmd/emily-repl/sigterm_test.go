package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestKernelSIGTERMRemovesIPCSockets stops a kernel on the ipc transport
// the way Jupyter does when shutdown_request goes unanswered, and checks
// no socket file is left to block the next start on the same paths.
func TestKernelSIGTERMRemovesIPCSockets(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "kernel")
	conn, _ := json.Marshal(map[string]any{
		"transport": "ipc", "ip": base, "key": "secret", "signature_scheme": "hmac-sha256",
		"shell_port": 1, "control_port": 2, "stdin_port": 3, "iopub_port": 4, "hb_port": 5,
	})
	connFile := filepath.Join(dir, "conn.json")
	if err := os.WriteFile(connFile, conn, 0o600); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		cmd := exec.Command(binary(t), "kernel", "-f", connFile)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			if files, _ := filepath.Glob(base + "-*"); len(files) == 5 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("round %d: the kernel never bound its 5 ipc sockets", round)
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("round %d: kernel exit after SIGTERM: %v", round, err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: kernel ignored SIGTERM", round)
		}
		if files, _ := filepath.Glob(base + "-*"); len(files) != 0 {
			t.Fatalf("round %d: ipc socket files left after SIGTERM: %v", round, files)
		}
	}
}
