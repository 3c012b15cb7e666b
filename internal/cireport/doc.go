// Package cireport writes a finished scan's axe-core issues in the two
// formats CI systems read: JUnit XML (GitLab, Jenkins, Azure DevOps, GitHub
// through actions) and SARIF 2.1.0 (GitHub code scanning).
//
// Both read axe_core_audit.csv alone, with internal/results' reader and its
// caps: it is the audit whose rows name a rule with help, impact, WCAG tags,
// an element and its HTML, which is what both formats describe. CWAC's own
// audits (focus indicator, reflow) stay in the summary and the HTML report.
//
// JUnit has a test case per page and rule: a rule met on a page is one check
// a CI user can follow from run to run, whereas a case per issue would come
// and go with every element, and a case per page would hide which rules
// fail. A page with no axe issue is one passing case, so every page scanned
// is seen. A case fails when one of its issues has an impact at or above the
// chosen one (results.ImpactRank orders them).
//
// SARIF has one run, one result per issue row, and partial fingerprints
// built from the identity the baseline comparison and the issue history use
// (internal/diff's PageKey and ElementTarget, the element's HTML, the rule,
// the viewport width and the organisation), so that code-scanning tools
// dedupe one issue across scans. With the scan's diff.json (its comparison
// with a baseline) each result says whether it is new or unchanged, and the
// baseline's fixed issues are listed as absent.
//
// Memory is bounded: SARIF results are written as the rows are read; what
// either format keeps (rules, test cases, fingerprints, the baseline's
// changes) is capped, and what passes a cap is counted and said.
package cireport
