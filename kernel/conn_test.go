package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConnInfo(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
		check   func(t *testing.T, ci *connInfo)
	}{
		{
			name: "full",
			json: `{"transport":"tcp","ip":"10.0.0.1","shell_port":1,"control_port":2,"stdin_port":3,
				"iopub_port":4,"hb_port":5,"key":"abc","signature_scheme":"hmac-sha256","kernel_name":"emily"}`,
			check: func(t *testing.T, ci *connInfo) {
				if ci.ShellPort != 1 || ci.ControlPort != 2 || ci.StdinPort != 3 || ci.IOPubPort != 4 || ci.HBPort != 5 {
					t.Errorf("ports = %+v", ci)
				}
				if got := ci.endpoint(ci.ShellPort); got != "tcp://10.0.0.1:1" {
					t.Errorf("endpoint = %s", got)
				}
			},
		},
		{
			name: "defaults",
			json: `{"shell_port":1}`,
			check: func(t *testing.T, ci *connInfo) {
				if ci.Transport != "tcp" || ci.IP != "127.0.0.1" || ci.SignatureScheme != "hmac-sha256" {
					t.Errorf("defaults = %+v", ci)
				}
			},
		},
		{
			name: "ipv6 is bracketed",
			json: `{"ip":"::1","shell_port":9}`,
			check: func(t *testing.T, ci *connInfo) {
				if got := ci.endpoint(9); got != "tcp://[::1]:9" {
					t.Errorf("endpoint = %s", got)
				}
			},
		},
		{
			name: "ipc names files ip-port",
			json: `{"transport":"ipc","ip":"/tmp/kernel","shell_port":7}`,
			check: func(t *testing.T, ci *connInfo) {
				if got := ci.endpoint(7); got != "ipc:///tmp/kernel-7" {
					t.Errorf("endpoint = %s", got)
				}
			},
		},
		{name: "not JSON", json: `{`, wantErr: "parse connection file"},
		{name: "bad transport", json: `{"transport":"udp"}`, wantErr: "unsupported transport"},
		{name: "bad port", json: `{"hb_port":70000}`, wantErr: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "conn.json")
			if err := os.WriteFile(path, []byte(tt.json), 0o600); err != nil {
				t.Fatal(err)
			}
			ci, err := readConnInfo(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, ci)
		})
	}
	if _, err := readConnInfo(filepath.Join(t.TempDir(), "missing.json")); err == nil ||
		!strings.Contains(err.Error(), "read connection file") {
		t.Errorf("missing file: err = %v", err)
	}
}
