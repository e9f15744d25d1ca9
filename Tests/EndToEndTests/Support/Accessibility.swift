// What a screen reader and a person in sunlight get from a page, read from the browser itself
// (issue 29, "keyboard and screen-reader usable", "contrast ≥ WCAG AA"):
// - `accessibilityProblems()`: Chromium's accessibility tree (DevTools `Accessibility.getFullAXTree`, the
//   tree a screen reader is given): every control and every focusable node has a name; every image
//   (an <img>, an <svg>, a canvas with role img) has a text alternative or is hidden from it; plus the
//   page's outline from the DOM: one <main>, one <h1>, headings that never skip a level, and every error
//   line a live region (role="alert" or inside aria-live), so an error is announced where it appears.
// - `lowContrast()`: visible text whose contrast with its background is under WCAG AA (4.5:1; 3:1 from
//   24 px, or 18.66 px bold).

import ClubhouseJSON
import Foundation

extension BrowserSession {
    /// Roles a person operates: each needs a name.
    static let controlRoles: Set<String> = ["button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "slider",
                                            "spinbutton", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
                                            "listbox", "treeitem", "progressbar", "meter", "scrollbar"]
    /// Roles of pictures: each needs a text alternative.
    static let imageRoles: Set<String> = ["img", "image", "graphics-document", "SvgRoot", "canvas"]

    /// The page's accessibility problems, one line each (empty when none).
    func accessibilityProblems() throws -> [String] {
        let tree = try command("POST", "/goog/cdp/execute", ["cmd": "Accessibility.getFullAXTree", "params": [:]])
        var problems: [String] = []
        for node in tree["nodes"]?.arrayValue ?? [] {
            if node["ignored"]?.boolValue == true { continue }
            let role = node["role"]?["value"]?.stringValue ?? ""
            let name = (node["name"]?["value"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let properties = node["properties"]?.arrayValue ?? []
            func property(_ key: String) -> JSONValue? { properties.first { $0["name"]?.stringValue == key }?["value"]?["value"] }
            let focusable = property("focusable")?.boolValue == true && !["RootWebArea", "WebArea"].contains(role)
            let control = BrowserSession.controlRoles.contains(role) || focusable
            let image = BrowserSession.imageRoles.contains(role)
            guard name.isEmpty, control || image else { continue }
            if property("disabled")?.boolValue == true && !focusable && role != "button" { continue }
            problems.append("\(image ? "a picture without a text alternative" : "a control without a name"): role \(role), \(try describe(node))")
        }
        let outline = try run(#"""
            const visible = (n) => !n.closest("[hidden]") && n.getClientRects().length > 0;
            const found = [];
            const mains = document.querySelectorAll("main, [role=main]").length;
            if (mains !== 1) found.push(`${mains} main landmarks; a page has one`);
            const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].filter((h) => visible(h) || h.classList.contains("visually-hidden"));
            const ones = headings.filter((h) => h.tagName === "H1").length;
            if (ones !== 1) found.push(`${ones} h1 headings; a page has one`);
            let level = 0;
            for (const h of headings) {
              const next = Number(h.tagName[1]);
              if (next > level + 1) found.push(`heading "${h.textContent.trim().slice(0, 40)}" is h${next} after h${level}: a level is skipped`);
              if (!h.textContent.trim()) found.push(`an empty h${next}`);
              level = next;
            }
            for (const e of document.querySelectorAll(".error")) {
              if (e.getAttribute("role") !== "alert" && !e.closest("[aria-live]")) found.push(`error line #${e.id || e.className} is not announced (role="alert" or aria-live)`);
            }
            return found;
            """#)
        problems += (outline.arrayValue ?? []).compactMap(\.stringValue)
        return problems
    }

    /// A node of the tree as a person finds it in the page: its element, id and classes.
    private func describe(_ node: JSONValue) throws -> String {
        guard let backend = node["backendDOMNodeId"]?.intValue else { return "no element" }
        let described = try command("POST", "/goog/cdp/execute", ["cmd": "DOM.describeNode", "params": ["backendNodeId": .int(backend)]])
        let dom = described["node"] ?? .null
        let attributes = dom["attributes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var pairs: [String] = []
        var i = 0
        while i + 1 < attributes.count {
            if ["id", "class", "type", "name", "data-zone", "href"].contains(attributes[i]) { pairs.append("\(attributes[i])=\"\(attributes[i + 1])\"") }
            i += 2
        }
        return "<\((dom["localName"]?.stringValue ?? "?"))\(pairs.isEmpty ? "" : " " + pairs.joined(separator: " "))>"
    }

    /// Visible texts whose contrast with their background is under WCAG AA, as "text: ratio".
    func lowContrast() throws -> [String] {
        let found = try run(#"""
            const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
            const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
              .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
            const background = (node) => {
              for (let n = node; n; n = n.parentElement) {
                const c = rgb(getComputedStyle(n).backgroundColor);
                if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
              }
              return [255, 255, 255];
            };
            const bad = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let t = walker.nextNode(); t; t = walker.nextNode()) {
              const node = t.parentElement;
              if (!t.textContent.trim() || !node || node.closest("[hidden], svg, .gradebar .gC") || node.closest(":disabled")) continue;
              const box = node.getBoundingClientRect();
              if (!box.width || !box.height) continue;
              const style = getComputedStyle(node);
              if (style.visibility === "hidden") continue;
              const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(background(node))];
              const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
              const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
              const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
              if (ratio < need) bad.push(`${t.textContent.trim().slice(0, 30)}: ${ratio.toFixed(2)}`);
            }
            return bad;
            """#)
        return (found.arrayValue ?? []).compactMap(\.stringValue)
    }
}
