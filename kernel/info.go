package kernel

import (
	"runtime"
	"strings"
)

// Info describes the kernel in kernel_info_reply. Zero fields get defaults
// (see withDefaults), so Info{} is a valid description.
type Info struct {
	// Implementation names the kernel implementation; default "emily".
	Implementation string
	// ImplementationVersion is the kernel's own version; default "dev".
	ImplementationVersion string
	// Language is the language_info block; empty fields default to Go's.
	Language LanguageInfo
	// Banner is shown by consoles on connect.
	Banner string
	// HelpLinks appear in the notebook's Help menu.
	HelpLinks []HelpLink
	// HistoryFile is where executed cells are kept across kernel restarts
	// for history_request (DefaultHistoryFile is the usual place); empty
	// keeps them in memory, for this kernel only.
	HistoryFile string
}

// LanguageInfo is the language_info block of kernel_info_reply.
type LanguageInfo struct {
	Name           string `json:"name"`
	Version        string `json:"version"`
	MIMEType       string `json:"mimetype"`
	FileExtension  string `json:"file_extension"`
	PygmentsLexer  string `json:"pygments_lexer,omitempty"`
	CodeMirrorMode string `json:"codemirror_mode,omitempty"`
}

// HelpLink is one entry of kernel_info_reply's help_links.
type HelpLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// withDefaults returns info with empty fields filled in.
func (info Info) withDefaults() Info {
	if info.Implementation == "" {
		info.Implementation = "emily"
	}
	if info.ImplementationVersion == "" {
		info.ImplementationVersion = "dev"
	}
	l := &info.Language
	if l.Name == "" {
		l.Name = "go"
	}
	if l.Version == "" {
		l.Version = GoLanguageVersion()
	}
	if l.MIMEType == "" {
		l.MIMEType = "text/x-go"
	}
	if l.FileExtension == "" {
		l.FileExtension = ".go"
	}
	if l.PygmentsLexer == "" {
		l.PygmentsLexer = "go"
	}
	if l.CodeMirrorMode == "" {
		l.CodeMirrorMode = "go"
	}
	if info.Banner == "" {
		info.Banner = "Emily for Go " + info.ImplementationVersion
	}
	if info.HelpLinks == nil {
		info.HelpLinks = []HelpLink{}
	}
	return info
}

// GoLanguageVersion is the language_info version: the Go language release
// the session implements, "1.26", without the toolchain's patch level.
// JupyterLab copies language_info into every notebook it opens and marks
// the notebook modified when it differs from what the file stores, so a
// patch release of the toolchain must not change it (notebooks/*.ipynb
// store it; tests/test_notebook_metadata.py checks that they agree).
func GoLanguageVersion() string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	if i := strings.IndexByte(v, '.'); i >= 0 {
		if j := strings.IndexAny(v[i+1:], ".-+ "); j >= 0 {
			v = v[:i+1+j]
		}
	}
	// A development toolchain ("devel go1.27-abcdef …") has no release.
	if strings.HasPrefix(v, "devel") {
		return "devel"
	}
	return v
}
