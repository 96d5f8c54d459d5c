package kernel

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"unicode/utf8"
)

// dispatch answers one request that arrived on ch, between a busy and an
// idle status on iopub so clients can track when the kernel is working on
// it. A panic in a handler is logged, never fatal.
func (k *kernel) dispatch(ch *channel, m *message) {
	k.publishStatus(m, "busy")
	defer func() {
		k.publishStatus(m, "idle")
		// Only stop after idle is out: clients wait for it.
		if k.shutdownPending.Load() {
			k.requestStop()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			k.log.Printf("%s: panic handling %s: %v\n%s", ch.name, m.Header.MsgType, r, debug.Stack())
			if strings.HasSuffix(m.Header.MsgType, "_request") {
				k.replyError(ch, m, "InternalError", fmt.Sprintf("the kernel failed handling %s: %v", m.Header.MsgType, r))
			}
		}
	}()

	switch t := m.Header.MsgType; t {
	case "kernel_info_request":
		k.handleKernelInfo(ch, m)
	case "execute_request":
		if ch != k.shell {
			// Cells run on the shell worker only; running one on control
			// would race with the cell already running there.
			k.log.Printf("%s: ignoring execute_request: cells run on shell only", ch.name)
			return
		}
		k.handleExecute(m)
	case "is_complete_request":
		k.handleIsComplete(ch, m)
	case "complete_request":
		k.handleComplete(ch, m)
	case "inspect_request":
		k.handleInspect(ch, m)
	case "history_request":
		k.handleHistory(ch, m)
	case "comm_info_request":
		k.reply(ch, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "interrupt_request":
		k.interruptCell()
		k.reply(ch, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		k.handleShutdown(ch, m)
	default:
		k.log.Printf("%s: ignoring unsupported message type %q", ch.name, t)
	}
}

// unmarshalContent decodes m's content into v. When the content does not
// fit (say {"code": 123}), it answers the request with an error reply and
// returns false: a signed request always gets a reply, or its client would
// wait forever.
func (k *kernel) unmarshalContent(ch *channel, m *message, v any) bool {
	if err := json.Unmarshal(orEmpty(m.Content), v); err != nil {
		err = fmt.Errorf("malformed %s content: %w", m.Header.MsgType, err)
		k.log.Printf("%s: %v", ch.name, err)
		k.replyError(ch, m, "BadRequest", err.Error())
		return false
	}
	return true
}

// replyError answers request m with its reply type and status "error".
func (k *kernel) replyError(ch *channel, m *message, ename, evalue string) {
	content := map[string]any{"status": "error", "ename": ename, "evalue": evalue, "traceback": []string{ename + ": " + evalue}}
	if m.Header.MsgType == "execute_request" {
		content["execution_count"] = k.execCount
	}
	k.reply(ch, m, strings.TrimSuffix(m.Header.MsgType, "_request")+"_reply", content)
}

// handleKernelInfo answers kernel_info_request, which clients also use as
// a ping to learn that the kernel is up.
func (k *kernel) handleKernelInfo(ch *channel, m *message) {
	k.reply(ch, m, "kernel_info_reply", map[string]any{
		"status":                 "ok",
		"protocol_version":       protocolVersion,
		"implementation":         k.info.Implementation,
		"implementation_version": k.info.ImplementationVersion,
		"language_info":          k.info.Language,
		"banner":                 k.info.Banner,
		"help_links":             k.info.HelpLinks,
		"debugger":               false,
	})
}

// handleIsComplete answers is_complete_request, which consoles use to
// decide whether Enter runs the code or starts a new line.
func (k *kernel) handleIsComplete(ch *channel, m *message) {
	var req struct {
		Code string `json:"code"`
	}
	if !k.unmarshalContent(ch, m, &req) {
		return
	}
	// The language's grammar is the Executor's: the kernel parses no Go.
	// Without a checker, "unknown" is the protocol's answer (a console
	// then decides itself whether Enter runs the code).
	status, indent := "unknown", ""
	if c, ok := k.exec.(CompletenessChecker); ok {
		status, indent = c.CheckComplete(req.Code)
	}
	content := map[string]any{"status": status}
	if status == "incomplete" {
		content["indent"] = indent
	}
	k.reply(ch, m, "is_complete_reply", content)
}

// handleComplete answers complete_request through the Executor when it is
// a Completer, else with no matches (the empty range at the cursor, so
// clients insert nothing). Jupyter counts cursor positions in Unicode code
// points; Go strings in bytes.
func (k *kernel) handleComplete(ch *channel, m *message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	if !k.unmarshalContent(ch, m, &req) {
		return
	}
	matches, start, end := []string{}, req.CursorPos, req.CursorPos
	metadata := map[string]any{}
	cursor := byteOffset(req.Code, req.CursorPos)
	if c, ok := k.exec.(KindCompleter); ok {
		found, kinds, bs, be := c.CompleteKinds(req.Code, cursor)
		if len(found) > 0 {
			matches, start, end = found, runeOffset(req.Code, bs), runeOffset(req.Code, be)
			types := make([]map[string]any, len(found))
			for i, f := range found {
				kind := ""
				if i < len(kinds) {
					kind = kinds[i]
				}
				types[i] = map[string]any{"start": start, "end": end, "text": f, "type": kind}
			}
			metadata["_jupyter_types_experimental"] = types
		}
	} else if c, ok := k.exec.(Completer); ok {
		found, bs, be := c.Complete(req.Code, cursor)
		if len(found) > 0 {
			matches, start, end = found, runeOffset(req.Code, bs), runeOffset(req.Code, be)
		}
	}
	k.reply(ch, m, "complete_reply", map[string]any{
		"status":       "ok",
		"matches":      matches,
		"cursor_start": start,
		"cursor_end":   end,
		"metadata":     metadata,
	})
}

// byteOffset converts a code-point offset into s to a byte offset.
func byteOffset(s string, runes int) int {
	n := 0
	for i := range s {
		if n == runes {
			return i
		}
		n++
	}
	return len(s)
}

// runeOffset converts a byte offset into s to a code-point offset.
func runeOffset(s string, bytes int) int {
	if bytes > len(s) {
		bytes = len(s)
	}
	return utf8.RuneCountInString(s[:bytes])
}

// handleShutdown answers shutdown_request and arranges for Run to return
// once the idle status is out. The reply also goes to iopub, as protocol
// 5.4 clients expect and older ones ignore.
func (k *kernel) handleShutdown(ch *channel, m *message) {
	var req struct {
		Restart bool `json:"restart"`
	}
	if !k.unmarshalContent(ch, m, &req) {
		return
	}
	content := map[string]any{"status": "ok", "restart": req.Restart}
	k.reply(ch, m, "shutdown_reply", content)
	k.publish(m, "shutdown_reply", content)
	k.shutdownPending.Store(true)
	// Cancel a running cell now rather than after the idle status, so a
	// shutdown sent on control does not wait for the cell.
	k.interruptCell()
}

// handleHistory answers history_request from the kernel's history
// (history.go): tail, range or search.
func (k *kernel) handleHistory(ch *channel, m *message) {
	var req historyRequest
	if !k.unmarshalContent(ch, m, &req) {
		return
	}
	rows, err := k.hist.query(req)
	if err != nil {
		k.replyError(ch, m, "BadRequest", err.Error())
		return
	}
	k.reply(ch, m, "history_reply", map[string]any{"status": "ok", "history": rows})
}

// handleInspect answers inspect_request through the Executor when it is
// an Inspector, else with found false.
func (k *kernel) handleInspect(ch *channel, m *message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	if !k.unmarshalContent(ch, m, &req) {
		return
	}
	data, found := map[string]any{}, false
	if in, ok := k.exec.(Inspector); ok {
		var text string
		if text, found = in.Inspect(req.Code, byteOffset(req.Code, req.CursorPos)); found {
			data["text/plain"] = text
		}
	}
	k.reply(ch, m, "inspect_reply", map[string]any{
		"status": "ok", "found": found, "data": data, "metadata": map[string]any{},
	})
}
