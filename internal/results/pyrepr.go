package results

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePyLiteral parses the Python literals CWAC writes into CSV cells with
// str(): dicts such as "{'width': 320, 'height': 450}", lists such as
// "['cat.color', 'wcag2aa']", strings, ints, floats, True, False and None. It
// returns JSON-shaped Go values (map[string]any, []any, string, int64,
// float64, bool, nil).
func ParsePyLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected %q after value", p.s[p.i:min(len(p.s), p.i+10)])
	}
	return v, nil
}

// Viewport is a parsed viewport_size cell.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// ParseViewport parses CWAC's viewport_size cell, "{'width': 320, 'height': 450}".
func ParseViewport(s string) (Viewport, error) {
	v, err := ParsePyLiteral(s)
	if err != nil {
		return Viewport{}, fmt.Errorf("viewport_size %q: %w", s, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Viewport{}, fmt.Errorf("viewport_size %q: not a dict", s)
	}
	w, wok := m["width"].(int64)
	h, hok := m["height"].(int64)
	if !wok || !hok {
		return Viewport{}, fmt.Errorf("viewport_size %q: width and height must be integers", s)
	}
	return Viewport{Width: int(w), Height: int(h)}, nil
}

// ParseTags parses axe's tags cell, "['cat.color', 'wcag2aa', 'wcag143']".
func ParseTags(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	v, err := ParsePyLiteral(s)
	if err != nil {
		return nil, fmt.Errorf("tags %q: %w", s, err)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("tags %q: not a list", s)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		str, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("tags %q: not a list of strings", s)
		}
		out = append(out, str)
	}
	return out, nil
}

// maxPyDepth bounds nesting so hostile input cannot exhaust the stack.
const maxPyDepth = 32

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("python literal at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, p.errorf("nested too deeply")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[' || c == '(':
		return p.list(depth)
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for word, v := range map[string]any{"True": true, "False": false, "None": nil} {
			if strings.HasPrefix(p.s[p.i:], word) {
				p.i += len(word)
				return v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			key = fmt.Sprint(k)
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		return nil, p.errorf("expected ',' or '}'")
	}
}

func (p *pyParser) list(depth int) (any, error) {
	closing := byte(']')
	if p.s[p.i] == '(' {
		closing = ')'
	}
	p.i++
	out := []any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			return out, nil
		}
		return nil, p.errorf("expected ',' or %q", closing)
	}
}

func (p *pyParser) str() (any, error) {
	quote := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case quote:
			p.i++
			return b.String(), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				return nil, p.errorf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return nil, p.errorf("short \\%c escape", e)
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil {
					return nil, p.errorf("bad \\%c escape", e)
				}
				b.WriteRune(rune(r))
				p.i += n
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[p.i]) >= 0 {
		p.i++
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, p.errorf("bad number %q", text)
	}
	return f, nil
}
