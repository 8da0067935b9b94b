/// Step 6 of a preset's way to a plan (plan): decides, once per preset, what
/// each node reads so that no work is repeated, from what each op declares of a node (never
/// from another stage's parameters):
///
/// - the cascade: several resizes of one image, each fitting a box (`FitBox`), become a chain
///   from the largest down, each made from the nearest larger one that leaves a factor of 2
///   (libvips' rule for its own shrink-on-load), so the full image is read by one resize alone;
/// - repeats: each copy of a fit written with `foreach` learns its siblings' smaller boxes, so
///   a copy that comes out the same as a smaller one (a photo narrower than both) is not made;
/// - shrink-on-load: a decoder read by one resize alone leaves its work to it (`fusedInto`);
/// - the direct path: a decode read by one fit, whose result only fits and JPEG or WebP encodes
///   read (`DirectForm`), runs without libvips;
/// - how many nodes read each result, so one read several times is computed once and kept.
///
/// The linked graph is left as it is: a cascaded resize's new source is its plan's
/// `cascadedFrom`, which the binding (step 7) reads.
enum GraphPlanner {
    static func plan(_ graph: LinkedGraph) -> GraphPlan {
        let drafts = graph.nodes
        var plans: [String: NodePlan] = [:]
        var readersOf: [String: [Int]] = [:]
        for (index, draft) in drafts.enumerated() where draft.from.count == 1 && draft.references.isEmpty {
            readersOf[draft.from[0].id, default: []].append(index)
        }
        let scopeOf = Dictionary(drafts.map { ($0.id, $0.scope) }, uniquingKeysWith: { first, _ in first })
        for (source, readers) in readersOf where readers.count > 1 {
            // The resizes of `source` that could feed one another, largest first.
            let sized = readers.compactMap { index -> (index: Int, box: FitBox)? in
                let draft = drafts[index]
                guard draft.scope == scopeOf[source], let box = draft.definition.spec.fitBox?(draft.parameters) else { return nil }
                return (index, box)
            }
            for (position, node) in sized.enumerated() {
                // The smallest other box at least twice this one.
                var best: (index: Int, box: FitBox, factor: Double)?
                for (other, candidate) in sized.enumerated() where other != position {
                    guard let factor = candidate.box.factor(over: node.box), factor >= FitBox.cascadeFactor else { continue }
                    if best.map({ factor < $0.factor }) ?? true { best = (candidate.index, candidate.box, factor) }
                }
                if !node.box.makesRepeats, let declared = drafts[node.index].copy?.declaredID {
                    plans[drafts[node.index].id, default: NodePlan()].smallerCopies = smallerCopies(of: node, declared: declared, among: sized, drafts)
                }
                guard let best else { continue }
                var plan = plans[drafts[node.index].id] ?? NodePlan()
                plan.writtenFrom = source
                plan.cascadedFrom = drafts[best.index].id
                plan.cascadeFactor = best.factor
                plans[drafts[node.index].id] = plan
            }
        }
        // What each node reads once the cascade is in place.
        let planned = drafts.map { $0.reading(plans[$0.id] ?? NodePlan()) }
        var readers: [String: [NodeDraft]] = [:]
        for draft in planned {
            for id in draft.upstreamIDs {
                plans[id, default: NodePlan()].readers += 1
                readers[id, default: []].append(draft)
            }
        }
        for draft in planned where draft.definition.spec.shrinksOnLoad {
            guard let only = readers[draft.id], only.count == 1, only[0].definition.spec.fitBox != nil,
                  only[0].from.first?.id == draft.id, only[0].scope == draft.scope else { continue }
            plans[draft.id, default: NodePlan()].fusedInto = only[0].id
            // decode → a fit → encodes, and fits made from it, all with direct forms: the direct path's tree.
            guard case .fit? = only[0].definition.spec.directForm?(only[0].parameters) else {
                plans[draft.id, default: NodePlan()].directRefusal = "\(only[0].id) does more than fit inside a box (a crop, a fill, an enlargement or a scale)"
                continue
            }
            switch directTree(from: only[0], readers) {
            case .success(let subsampled): plans[draft.id, default: NodePlan()].direct = DirectChain(encodesSubsampled: subsampled)
            case .failure(let refusal): plans[draft.id, default: NodePlan()].directRefusal = refusal.words
            }
        }
        return GraphPlan(nodes: plans)
    }

    /// The copies of the same written node among `sized` whose boxes are smaller than `node`'s
    /// on every axis it bounds, smallest first.
    private static func smallerCopies(of node: (index: Int, box: FitBox), declared: String, among sized: [(index: Int, box: FitBox)],
                                      _ drafts: [NodeDraft]) -> [SmallerCopy] {
        sized.compactMap { other -> (SmallerCopy, Double)? in
            guard other.index != node.index, drafts[other.index].copy?.declaredID == declared,
                  let factor = node.box.factor(over: other.box), factor > 1 else { return nil }
            return (SmallerCopy(id: drafts[other.index].id, box: other.box), factor)
        }
        .sorted { $0.1 > $1.1 }
        .map(\.0)
    }

    /// Why a tree is not the direct path's, in words for `explain`.
    struct DirectRefusal: Error {
        let words: String
    }

    /// Whether everything that reads `node` (a fit) can run on the direct path: fits made from
    /// it (and what reads those) and encodes with a direct form, each reading it alone, in its
    /// scope. On success, whether every encode writes 4:2:0; else the first node that cannot.
    private static func directTree(from node: NodeDraft, _ readers: [String: [NodeDraft]]) -> Result<Bool, DirectRefusal> {
        guard let next = readers[node.id], !next.isEmpty else { return .failure(DirectRefusal(words: "nothing reads \(node.id)")) }
        var subsampled = true
        for reader in next {
            guard reader.scope == node.scope, reader.from.count == 1, reader.from[0].id == node.id, reader.references.isEmpty else {
                return .failure(DirectRefusal(words: "\(reader.id) reads more than \(node.id)"))
            }
            guard let form = reader.definition.spec.directForm?(reader.parameters) else {
                let what = reader.definition.spec.name == "encode"
                    ? "writes what only libvips writes (the direct path writes JPEG and lossy WebP with a quality or a target alone, AVIF and JPEG XL with a quality or a target and an effort, and the default metadata)"
                    : "is a \(reader.definition.spec.name), which runs on libvips images (the direct path only fits and encodes)"
                return .failure(DirectRefusal(words: "\(reader.id) \(what)"))
            }
            if case .fit = form {
                switch directTree(from: reader, readers) {
                case .success(let below): subsampled = subsampled && below
                case .failure(let refusal): return .failure(refusal)
                }
            } else {
                subsampled = subsampled && form.encodesSubsampled == true
            }
        }
        return .success(subsampled)
    }
}
