package launch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Ranks on other hosts (a ring hostfile naming them) start over ssh, as
// mlx.launch starts them: `ssh HOST sh -c SCRIPT`, where the script
// writes the hostfile there (MLX_HOSTFILE is a path on that host), moves
// to this working directory, and runs the same command with the rank's
// variables. The command's path must be valid on that host too (the same
// install at the same path, as mlx.launch assumes of its Python).
//
// Stopping a remote rank: killing the local ssh does not reach a process
// on the other host without a terminal, so the script watches its stdin
// (the ssh channel, kept open by the launcher) and kills the rank when it
// closes, which it does when ssh is stopped or the launcher exits.
//
// $EMILY_LAUNCH_SSH names the ssh to run (default "ssh"), for an ssh
// with other options or a wrapper.

// sshCommand is the ssh command that starts rank r's command on host.
func sshCommand(host string, r int, hostfile []byte, dir string, env, command []string) *exec.Cmd {
	ssh := os.Getenv("EMILY_LAUNCH_SSH")
	if ssh == "" {
		ssh = "ssh"
	}
	var assign []string
	for _, kv := range append(append([]string{}, env...), "MLX_RANK="+strconv.Itoa(r)) {
		k, v, _ := strings.Cut(kv, "=")
		assign = append(assign, k+"="+shellQuote(v))
	}
	var argv []string
	for _, a := range command {
		argv = append(argv, shellQuote(a))
	}
	// fd 3 keeps the channel for the watcher: an asynchronous command's
	// stdin is /dev/null in sh.
	script := fmt.Sprintf(`exec 3<&0
f=$(mktemp) || exit 1
printf '%%s' %s >"$f"
cd %s 2>/dev/null
%s MLX_HOSTFILE="$f" %s 3<&- &
p=$!
(cat <&3 >/dev/null; kill -TERM $p 2>/dev/null) >/dev/null 2>&1 &
w=$!
exec 3<&-
wait $p
s=$?
kill $w 2>/dev/null
rm -f "$f"
exit $s`, shellQuote(string(hostfile)), shellQuote(dir), strings.Join(assign, " "), strings.Join(argv, " "))
	// BatchMode: no password prompt to hang on; ConnectTimeout: an
	// unreachable host is a failed rank within seconds, not minutes.
	return exec.Command(ssh, "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, "sh -c "+shellQuote(script))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
