package kernel

import (
	"encoding/json"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"strings"
)

// connInfo is the connection file Jupyter writes for a kernel it starts:
// where to bind each socket and how to sign messages.
type connInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// readConnInfo reads and validates the connection file at path, filling the
// defaults jupyter_client assumes (tcp on 127.0.0.1, hmac-sha256).
func readConnInfo(path string) (*connInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("kernel: read connection file %s: %w", path, err)
	}
	var ci connInfo
	if err := json.Unmarshal(data, &ci); err != nil {
		return nil, fmt.Errorf("kernel: parse connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.IP == "" {
		ci.IP = "127.0.0.1"
	}
	if ci.SignatureScheme == "" {
		ci.SignatureScheme = "hmac-sha256"
	}
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return nil, fmt.Errorf("kernel: connection file %s: unsupported transport %q", path, ci.Transport)
	}
	for name, port := range map[string]int{
		"shell_port": ci.ShellPort, "control_port": ci.ControlPort, "stdin_port": ci.StdinPort,
		"iopub_port": ci.IOPubPort, "hb_port": ci.HBPort,
	} {
		if port < 0 || port > 65535 {
			return nil, fmt.Errorf("kernel: connection file %s: %s %d out of range", path, name, port)
		}
	}
	return &ci, nil
}

// endpoint returns the ZeroMQ address for port. For ipc, jupyter_client
// names the socket file "<ip>-<port>", so the same rule applies here.
func (ci *connInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return "ipc://" + ci.IP + "-" + strconv.Itoa(port)
	}
	// JoinHostPort brackets IPv6 addresses, which a bare "ip:port" would not.
	return "tcp://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}

// checkConnFileMode makes sure only the owner can read the connection
// file: it holds the signing key, and anyone who reads it can run code in
// the kernel. Jupyter writes it 0600; a looser mode is tightened and
// logged.
func checkConnFileMode(path string, logger *log.Logger) {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o077 == 0 {
		return
	}
	if err := os.Chmod(path, st.Mode().Perm()&0o700); err != nil {
		logger.Printf("WARNING: connection file %s is readable by others (mode %v) and could not be restricted: %v", path, st.Mode().Perm(), err)
		return
	}
	logger.Printf("connection file %s was readable by others (mode %v); restricted it to 0600", path, st.Mode().Perm())
}

// removeStaleIPC removes the socket file of an ipc endpoint left by a
// kernel that died without cleaning up: bind would fail on it. A file
// something still listens on is in use and is left alone (bind reports).
func removeStaleIPC(ep string) error {
	path := strings.TrimPrefix(ep, "ipc://")
	st, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("kernel: ipc endpoint %s exists and is not a socket", path)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return fmt.Errorf("kernel: ipc endpoint %s is in use by another process", path)
	}
	return os.Remove(path)
}
