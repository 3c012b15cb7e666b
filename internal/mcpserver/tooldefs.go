package mcpserver

import "context"

// toolDef is one tool as its own file defines it (tool_*.go, in an init
// function): a tool is written and registered in one place, and New adds
// every one (the read-only server leaves out those that change scans).
type toolDef struct {
	name     string
	readOnly bool
	add      func(s *Server) error
}

// toolDefs are the tools the files of this package define.
var toolDefs []toolDef

// defineTool defines a tool with its description, whether it only reads,
// and its handler (a method expression, (*Server).name).
func defineTool[In, Out any](name, description string, readOnly bool, handler func(*Server, context.Context, *callInfo, In) (Out, error)) {
	toolDefs = append(toolDefs, toolDef{name: name, readOnly: readOnly, add: func(s *Server) error {
		return addTool(s, name, description, readOnly, func(ctx context.Context, call *callInfo, in In) (Out, error) {
			return handler(s, ctx, call, in)
		})
	}})
}
