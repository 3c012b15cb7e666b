package mcpserver

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// callFS is a results directory as the tools read it: confined to the
// directory (an os.Root), opening only regular files and directories, and
// reading only while the tool call lives. Whoever can write the results
// volume (a compromised scan pod) can plant a FIFO where a CSV should be;
// opening one blocks until a writer appears, so a handler that timed out
// would leave a thread stuck in open() for ever. Files are therefore opened
// non-blocking and checked before use, and every read fails once the call's
// context is done, so a timed-out handler stops instead of reading on.
type callFS struct {
	ctx  context.Context
	root *os.Root
}

var (
	_ fs.StatFS    = callFS{}
	_ fs.ReadDirFS = callFS{}
)

// Open opens name read-only without blocking and refuses anything but a
// regular file or a directory.
func (c callFS) Open(name string) (fs.File, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := c.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		closeReadOnly(f)
		return nil, err
	}
	if !info.Mode().IsRegular() && !info.IsDir() {
		closeReadOnly(f)
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s)", info.Mode().Type())}
	}
	return callFile{File: f, ctx: c.ctx}, nil
}

// Stat never opens the file, so it cannot block.
func (c callFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.root.FS(), name) }

// ReadDir lists a directory through the confined root.
func (c callFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return fs.ReadDir(c.root.FS(), name)
}

// callFile is an open file whose reads stop when the call ends.
type callFile struct {
	*os.File
	ctx context.Context
}

func (f callFile) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Read(p)
}
