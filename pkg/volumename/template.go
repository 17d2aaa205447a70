package volumename

import (
	"errors"
	"fmt"
	"strings"
	"text/template/parse"
)

// The fields a template may use, as {{.Field}}.
const (
	FieldNamespace = "Namespace"
	FieldName      = "Name"
	FieldUID       = "UID"
	FieldUIDShort  = "UIDShort"
	FieldPrefix    = "Prefix"
)

// UIDShortLength is how many hex digits of the claim's UID {{.UIDShort}}
// keeps: with the namespace and name it tells apart the claims that ever
// had one name (2^32 to one that two of them share it).
const UIDShortLength = 8

// piece is one part of a parsed template: literal text, or a field.
type piece struct {
	text  string
	field string
}

// template is a parsed --volume-name-template: text and plain fields only,
// so its names are exactly what its text shows.
type template []piece

var errNoTemplate = errors.New("the volume name template is empty")

// parseTemplate parses tmpl with Go's template syntax and refuses anything
// but literal text and {{.Field}} actions: a function or a condition could
// hide the UID, and with it the name's uniqueness.
func parseTemplate(tmpl string) (template, error) {
	if strings.TrimSpace(tmpl) == "" {
		return nil, errNoTemplate
	}
	trees, err := parse.Parse("volume-name", tmpl, "", "", map[string]any{})
	if err != nil {
		return nil, fmt.Errorf("volume name template %q: %w", tmpl, err)
	}
	if len(trees) != 1 {
		return nil, fmt.Errorf("volume name template %q must not define templates", tmpl)
	}
	var out template
	for _, node := range trees["volume-name"].Root.Nodes {
		switch n := node.(type) {
		case *parse.TextNode:
			text := string(n.Text)
			if bad := strings.IndexFunc(text, func(r rune) bool { return !nameChar(r) }); bad >= 0 {
				return nil, fmt.Errorf("volume name template %q: its text may hold only lower-case letters, digits and '-', not %q", tmpl, text[bad:bad+1])
			}
			out = append(out, piece{text: text})
		case *parse.ActionNode:
			field, ok := plainField(n)
			if !ok {
				return nil, fmt.Errorf("volume name template %q: %s is not one of {{.%s}}, {{.%s}}, {{.%s}}, {{.%s}} or {{.%s}}",
					tmpl, n.String(), FieldNamespace, FieldName, FieldUID, FieldUIDShort, FieldPrefix)
			}
			out = append(out, piece{field: field})
		default:
			return nil, fmt.Errorf("volume name template %q: %s is not allowed; use text and {{.Field}} only", tmpl, node.String())
		}
	}
	return out, out.checkUnique(tmpl)
}

// plainField returns the field of an action that is exactly {{.Field}}.
func plainField(n *parse.ActionNode) (string, bool) {
	if n.Pipe == nil || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 || len(n.Pipe.Cmds[0].Args) != 1 {
		return "", false
	}
	f, ok := n.Pipe.Cmds[0].Args[0].(*parse.FieldNode)
	if !ok || len(f.Ident) != 1 {
		return "", false
	}
	switch name := f.Ident[0]; name {
	case FieldNamespace, FieldName, FieldUID, FieldUIDShort, FieldPrefix:
		return name, true
	}
	return "", false
}

// checkUnique refuses a template that could give two claims one name: it
// needs the whole UID, or the short UID with the namespace and the name.
func (t template) checkUnique(tmpl string) error {
	has := map[string]bool{}
	for _, p := range t {
		has[p.field] = true
	}
	if has[FieldUID] || (has[FieldUIDShort] && has[FieldNamespace] && has[FieldName]) {
		return nil
	}
	return fmt.Errorf("volume name template %q could give two claims the same name: it needs {{.%s}}, or {{.%s}} with both {{.%s}} and {{.%s}}",
		tmpl, FieldUID, FieldUIDShort, FieldNamespace, FieldName)
}

// render fills in the fields; it does not check or shorten the result.
func (t template) render(v values) string {
	var b strings.Builder
	for _, p := range t {
		switch p.field {
		case "":
			b.WriteString(p.text)
		case FieldNamespace:
			b.WriteString(v.namespace)
		case FieldName:
			b.WriteString(v.name)
		case FieldUID:
			b.WriteString(v.uid)
		case FieldUIDShort:
			b.WriteString(shortUID(v.uid))
		case FieldPrefix:
			b.WriteString(v.prefix)
		}
	}
	return b.String()
}

// values are what a template is rendered with.
type values struct {
	namespace, name, uid, prefix string
}

// shortUID is the first UIDShortLength hex digits of uid.
func shortUID(uid string) string {
	compact := strings.ReplaceAll(uid, "-", "")
	return compact[:min(len(compact), UIDShortLength)]
}

// nameChar is what a rendered name may hold; anything else is replaced.
// It is the character set of a DNS label, which every backend we know of
// accepts (some refuse '.', '_' or upper case).
func nameChar(r rune) bool {
	return (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-'
}
