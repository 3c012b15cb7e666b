package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Bounds of a scan's files: how many are listed, and how large a
// download may be (CWAC's CSVs of a large scan reach hundreds of MiB).
const (
	maxFilesListed   = 500
	MaxDownloadBytes = 2 << 30
)

// fileRE is a result file's name: one path segment of safe characters.
var fileRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$`)

// scanOrganisationsPerPage is the default rows of a scan's organisations
// table: a scan of 1,000 organisations listed whole made a 400 KB page.
const scanOrganisationsPerPage = 100

// reportFile is the HTML report the runner writes beside CWAC's results.
const reportFile = "report.html"

type resultFile struct {
	Name, URL string
	Size      int64
}

type scanPage struct {
	Scan          ScanInfo
	Organisations []store.OrganisationScan
	Pager         pager
	History       string
	// Partial says which of a recorded scan's result files were not read
	// ("" when none).
	Partial   string
	Files     []resultFile
	FilesNote string
	Report    *resultFile
	// SetAside is the shown organisations' findings set aside from their
	// figures (report.TimingDependentWhy).
	SetAside int64
	// Decided is the shown organisations' issues a decision covered,
	// left out of their figures as the scan's report left them out.
	Decided int64
	// ChangesCSV and ChangesJSON are the exports of what the scan changed
	// in the history, issue by issue (exportScanChanges).
	ChangesCSV, ChangesJSON string
	// IssueEvents say where the scan's issue events stand for each
	// receiver (issueEventStates).
	IssueEvents []string
}

// scan is /scans/{ns}/{name}: one scan's summary, failure, baseline
// comparison, figures per organisation and files.
func (h *Handler) scan(w http.ResponseWriter, r *http.Request, v *viewer) {
	ns, name, ok := h.scanParams(w, r, v, fieldPage, fieldPerPage)
	if !ok {
		return
	}
	q := r.URL.Query()
	p, err := parsePaging(q, scanOrganisationsPerPage)
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return
	}
	ctx := r.Context()
	s, err := h.opts.Scans.GetScan(ctx, ns, name)
	if err != nil {
		h.scanFailed(w, r, v, ns, name, err)
		return
	}
	d := scanPage{Scan: s}
	if st, serr := h.opts.Store.Get(); serr != nil {
		d.History = historyUnavailable(serr)
	} else {
		var total int
		d.Organisations, total, err = ScanOrganisations(ctx, st, ns, name, p.Offset(), p.PerPage)
		switch {
		case errors.Is(err, store.ErrScanNotStored):
			d.History = notRecorded(ctx, st, s)
		case err != nil:
			h.storeFailed(w, r, v, "", err)
			return
		default:
			d.Partial = recordedInPart(ctx, st, s)
			d.ChangesCSV, d.ChangesJSON = scanExport(ns, name, exportChangesBase+".csv"), scanExport(ns, name, exportChangesBase+".json")
			d.IssueEvents = issueEventStates(ctx, st, ns, s.UID)
			for _, o := range d.Organisations {
				d.SetAside += o.Figures.SetAside
				d.Decided += o.Figures.Decided
			}
		}
		if d.Pager, err = newPager("Pages of this scan's organisations", "organisations", r.URL.EscapedPath(), q, p, total); err != nil {
			h.badRequest(w, r, v, err.Error())
			return
		}
	}
	d.Files, d.FilesNote = h.listFiles(r, ns, name)
	for i := range d.Files {
		if d.Files[i].Name == reportFile {
			d.Report = &d.Files[i]
		}
	}
	h.render(w, r, http.StatusOK, "scan", page{Title: "Scan " + ns + "/" + name, Nav: navScans, Viewer: v, Data: d})
}

// scanExport is the URL of one of a scan's exports.
func scanExport(ns, name, file string) string {
	return "/export/scans/" + url.PathEscape(ns) + "/" + url.PathEscape(name) + "/" + file
}

// ScanOrganisations is a page of a scan's organisations with their
// figures in it, each score as shownScore shows it: the scan page's
// table renders it.
func ScanOrganisations(ctx context.Context, st *store.Store, namespace, name string, offset, limit int) ([]store.OrganisationScan, int, error) {
	orgs, total, err := st.ScanOrganisations(ctx, namespace, name, offset, limit)
	for i := range orgs {
		f := &orgs[i].Figures
		f.Score = shownScore(f.Score, f.Completeness)
	}
	return orgs, total, err
}

// scanParams validates a scan's path values and the viewer's access.
// allowed are the query parameters the page takes.
func (h *Handler) scanParams(w http.ResponseWriter, r *http.Request, v *viewer, allowed ...string) (ns, name string, ok bool) {
	ns, name, err := scanPath(r, allowed...)
	if err != nil {
		h.badRequest(w, r, v, err.Error())
		return "", "", false
	}
	if !v.may(ns) {
		h.refused(r, v, "may not read namespace "+ns)
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("No scan %s in namespace %s that you may read.", name, ns))
		return "", "", false
	}
	if !v.reachOf(ns).IsWhole() {
		h.refuseScans(w, r, v, "a scan's page and files")
		return "", "", false
	}
	return ns, name, h.needScans(w, r, v)
}

// scanPath is a scan's path values ({ns}, {name}), checked, with the
// query parameters the page takes.
func scanPath(r *http.Request, allowed ...string) (ns, name string, err error) {
	ns, name = r.PathValue("ns"), r.PathValue("name")
	err = checkQuery(r.URL.Query(), allowed...)
	if err == nil {
		err = checkName(fieldNamespace, ns)
	}
	if err == nil {
		err = checkName("scan name", name)
	}
	return ns, name, err
}

func (h *Handler) scanFailed(w http.ResponseWriter, r *http.Request, v *viewer, ns, name string, err error) {
	if errors.Is(err, ErrScanNotFound) {
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("No scan %s in namespace %s.", name, ns))
		return
	}
	h.scansFailed(w, r, v, err)
}

// listFiles lists the top of a scan's results directory: the report
// first, then the rest by name. A scan without results says why.
func (h *Handler) listFiles(r *http.Request, ns, name string) ([]resultFile, string) {
	fsys, done, err := h.opts.Scans.OpenResults(r.Context(), ns, name)
	if errors.Is(err, ErrNoResults) {
		return nil, "This scan has no results directory."
	}
	if err != nil {
		h.opts.Log.Error("dashboard: opening results", "scan", ns+"/"+name, "err", err)
		return nil, "The results volume could not be read just now."
	}
	defer done()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		h.opts.Log.Error("dashboard: listing results", "scan", ns+"/"+name, "err", err)
		return nil, "The results volume could not be read just now."
	}
	var files []resultFile
	note := ""
	for _, e := range entries {
		if !e.Type().IsRegular() || !fileRE.MatchString(e.Name()) {
			continue
		}
		if len(files) == maxFilesListed {
			note = fmt.Sprintf("Only the first %d files are listed.", maxFilesListed)
			break
		}
		var size int64
		if info, err := e.Info(); err == nil {
			size = info.Size()
		}
		files = append(files, resultFile{Name: e.Name(), Size: size,
			URL: "/scans/" + url.PathEscape(ns) + "/" + url.PathEscape(name) + "/files/" + url.PathEscape(e.Name())})
	}
	slices.SortStableFunc(files, func(a, b resultFile) int {
		switch {
		case a.Name == reportFile:
			return -1
		case b.Name == reportFile:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(files) == 0 && note == "" {
		note = "The results directory holds no files."
	}
	return files, note
}

// scanFile is /scans/{ns}/{name}/files/{file}: one result file, read
// only, through the scan's confined results directory, always as a
// download (the report's own scripts and styles never run under the
// dashboard's origin).
func (h *Handler) scanFile(w http.ResponseWriter, r *http.Request, v *viewer) {
	file := r.PathValue("file")
	if !fileRE.MatchString(file) {
		h.badRequest(w, r, v, fmt.Sprintf("file %q is not a result file's name (letters, digits, '_', '.' and '-', not starting with '.')", textcap.Head(file, 64)))
		return
	}
	ns, name, ok := h.scanParams(w, r, v)
	if !ok {
		return
	}
	ctx := r.Context()
	if _, err := h.opts.Scans.GetScan(ctx, ns, name); err != nil {
		h.scanFailed(w, r, v, ns, name, err)
		return
	}
	fsys, done, err := h.opts.Scans.OpenResults(ctx, ns, name)
	if errors.Is(err, ErrNoResults) {
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("Scan %s/%s has no results directory.", ns, name))
		return
	}
	if err != nil {
		h.scansFailed(w, r, v, err)
		return
	}
	defer done()
	f, err := fsys.Open(file)
	if err != nil {
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("Scan %s/%s has no result file %s.", ns, name, file))
		return
	}
	defer func() { _ = f.Close() }() // read only
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		h.fail(w, r, v, http.StatusNotFound, "Not found", fmt.Sprintf("Scan %s/%s has no result file %s.", ns, name, file))
		return
	}
	if info.Size() > MaxDownloadBytes {
		h.fail(w, r, v, http.StatusRequestEntityTooLarge, "File too large",
			fmt.Sprintf("%s is %d bytes, more than the dashboard serves (%d); read it from the results volume.", file, info.Size(), int64(MaxDownloadBytes)))
		return
	}
	ct := mime.TypeByExtension(path.Ext(file))
	switch path.Ext(file) {
	case ".csv":
		ct = "text/csv; charset=utf-8"
	case ".log", ".txt":
		ct = "text/plain; charset=utf-8"
	case "":
		ct = ""
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", `attachment; filename="`+file+`"`)
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.Copy(w, io.LimitReader(f, info.Size()))
}

// notRecorded says why a scan is not in the issue history: the writer's
// note when it could not record the scan, else the usual reasons.
func notRecorded(ctx context.Context, st *store.Store, s ScanInfo) string {
	if u := writerNote(ctx, st, s); u != nil && u.State != store.Partial {
		return fmt.Sprintf("This scan is not in the issue history (noted %s): %s.", notedAt(u), u.Reason)
	}
	return "This scan is not in the issue history (it has not finished, scanned no page, is still being recorded, or was pruned)."
}

// recordedInPart says which of a recorded scan's result files the writer
// did not read, and why ("" when it read them all or noted nothing).
func recordedInPart(ctx context.Context, st *store.Store, s ScanInfo) string {
	if u := writerNote(ctx, st, s); u != nil && u.State == store.Partial {
		return fmt.Sprintf("Some of this scan's results were not read into the issue history (noted %s): %s.", notedAt(u), u.Reason)
	}
	return ""
}

// writerNote is what the history's writer kept about the scan (nil: none,
// or a scan with no UID, or a store that does not answer: the page then
// says the usual).
func writerNote(ctx context.Context, st *store.Store, s ScanInfo) *store.UnrecordedScan {
	if s.UID == "" {
		return nil
	}
	u, err := st.Unrecorded(ctx, s.UID)
	if err != nil {
		return nil
	}
	return u
}

// notedAt is when the writer kept its note, as the scan page says it.
func notedAt(u *store.UnrecordedScan) string { return datetime(u.UpdatedAt) }

// historyUnavailable says why the issue history cannot be read (the
// store's error): on a scan's page, and first on the history pages' 503.
func historyUnavailable(err error) string {
	if errors.Is(err, store.ErrNotConfigured) {
		return "The issue history is not configured on this server (it was started without --store)."
	}
	return "The issue history's database has not answered since this server started; the server keeps trying."
}
