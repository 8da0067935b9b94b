import WorkbenchCore

/// The savers' options as `encode` declares and checks them: one parameter per option of every
/// saver loaded, a block of options per format, and each copy's options for its own format.
extension EncodeStage {
    /// The saver options a copy writing `format` gets: the node's own, with the block of
    /// options for that format alone (`"avif": {"Q": 52}`) over them; other formats' blocks are
    /// for the copies that write those.
    static func saverValues(_ p: ParameterValues, format: String?) -> [String: ParameterValue] {
        let own = Set(Parameters.bindings.map(\.spec.name)), blocks = Set(EncodeFormat.known.map(\.name))
        var values: [String: ParameterValue] = [:]
        for name in p.names where !own.contains(name) && !blocks.contains(name) { values[name] = p[name] }
        if let format, let block = p[format] {
            for (name, value) in block.pairs { values[name] = value }
        }
        return values
    }

    /// One parameter per format, named by it, holding options for that format alone: one
    /// `encode` repeated over formats (`"foreach": {"fmt": ["avif", "webp", "jpeg"]}`) gives each
    /// its own quality and effort.
    static func formatBlocks(of formats: [EncodeFormat]) -> [ParameterSpec] {
        formats.map { format in
            let fields = format.options.filter { $0.name != "strip" }.compactMap { argument -> OptionField? in
                guard let parameter = VipsOperationOps.parameter(for: argument, as: fileType(argument.name)) else { return nil }
                return OptionField(parameter.name, parameter.type, aliases: parameter.name == qualityName ? ["quality"] : parameter.aliases)
            }
            let example = format.name == "avif" || format.name == "jxl" || format.name == "webp" ? "{\"Q\": 60, \"effort\": 4}" : "{\"Q\": 82}"
            return ParameterSpec(format.name, .options(fields), default: nil, passesDefault: false,
                                 "Options for the copies that write \(format.displayName) alone, e.g. \"\(format.name)\": \(example); over the same options given to the node.")
        }
    }

    /// The union of the savers' options: one parameter per name, with a type wide enough for
    /// every saver that has it (`check` then holds the value to the chosen saver's own type).
    static func saverOptions(of formats: [EncodeFormat]) -> [ParameterSpec] {
        var byName: [String: [ParameterSpec]] = [:]
        var order: [String] = []
        for format in formats {
            for argument in format.options {
                guard let parameter = VipsOperationOps.parameter(for: argument, as: fileType(argument.name)) else { continue }
                if byName[parameter.name] == nil { order.append(parameter.name) }
                byName[parameter.name, default: []].append(parameter)
            }
        }
        return order.compactMap { name in
            guard let variants = byName[name], let first = variants.first else { return nil }
            let having = formats.filter { f in f.options.contains { $0.name == name } }.map(\.name)
            let sameDefault = variants.allSatisfy { $0.defaultValue == first.defaultValue }
            return ParameterSpec(name, widest(variants.map(\.type)), default: sameDefault ? first.defaultValue : nil,
                                 passesDefault: false, aliases: name == "Q" ? ["quality"] + first.aliases : first.aliases,
                                 deprecated: variants.allSatisfy(\.isDeprecated),
                                 givenNotice: name == "strip" ? Self.stripNotice : nil,
                                 summary(of: variants, formats: having))
        }
    }

    /// One saver's words for an option, with the formats that have it; each saver's own words
    /// where they differ (PNG's `effort` is quantisation effort, 0…10, WebP's 0…6).
    static func summary(of variants: [ParameterSpec], formats: [String]) -> String {
        func plain(_ text: String) -> String { String(text.dropLast(text.hasSuffix(".") ? 1 : 0)) }
        var wordings: [(text: String, formats: [String])] = []
        for (variant, format) in zip(variants, formats) {
            let text = plain(variant.summary) + (variant.type.bounds.map { ", \(ParameterType.format($0.lowerBound))…\(ParameterType.format($0.upperBound))" } ?? "")
            if let index = wordings.firstIndex(where: { $0.text == text }) {
                wordings[index].formats.append(format)
            } else {
                wordings.append((text, [format]))
            }
        }
        guard wordings.count > 1 else { return "\(plain(variants[0].summary)) (\(formats.joined(separator: ", ")))." }
        return wordings.map { "\($0.formats.joined(separator: ", ")): \($0.text)" }.joined(separator: "; ") + "."
    }


    /// What validation says of libvips' `strip`, which `metadata` overrules.
    static let stripNotice = "\"strip\" is libvips' own and would drop the ICC colour profile too; \"metadata\" decides what the file keeps (its default, \"strip\", keeps only the ICC profile), so \"strip\" is ignored — to drop the profile as well, give \"metadata\": []"

    /// The saver options that name files (the ICC profile to embed) read only inside the preset's folder.
    static func fileType(_ name: String) -> ParameterType? {
        VipsOperationPolicy.fileArguments.contains(name) ? .presetFile(builtins: VipsOperationPolicy.builtins(for: name)) : nil
    }

    /// One type that accepts what each of `types` accepts.
    static func widest(_ types: [ParameterType]) -> ParameterType {
        var unique: [ParameterType] = []
        for type in types where !unique.contains(type) { unique.append(type) }
        guard unique.count > 1 else { return unique.first ?? .string }
        let ints = unique.compactMap { if case .int(let r) = $0 { return r } else { return nil } }
        if ints.count == unique.count, let low = ints.map(\.lowerBound).min(), let high = ints.map(\.upperBound).max() {
            return .int(low...high)
        }
        let doubles = unique.compactMap { if case .double(let r) = $0 { return r } else { return nil } }
        if doubles.count == unique.count, let low = doubles.map(\.lowerBound).min(), let high = doubles.map(\.upperBound).max() {
            return .double(low...high)
        }
        let words = unique.compactMap { if case .choice(let w) = $0 { return w } else { return nil } }
        if words.count == unique.count {
            var all: [String] = []
            for word in words.joined() where !all.contains(word) { all.append(word) }
            return .choice(all)
        }
        return .anyOf(unique)
    }

    /// Holds every option to the chosen format's saver, and the format to what this libvips can write.
    static func check(_ values: ParameterValues) -> String? {
        guard let name = Parameters(values).format, let format = EncodeFormat.named(name) else { return nil }
        if let reason = format.unavailableReason() { return reason }
        let options = format.options
        let own = Set(Parameters.bindings.map(\.spec.name)), blocks = Set(EncodeFormat.known.map(\.name))
        for given in values.names where !own.contains(given) && !blocks.contains(given) {
            guard let argument = options.first(where: { $0.name == given }),
                  let parameter = VipsOperationOps.parameter(for: argument, as: fileType(given)) else {
                // The formats a page is made of first: the likeliest siblings in a repeated encode.
                let order = ["avif", "webp", "jxl", "jpeg", "png", "heif", "gif", "tiff"]
                let others = EncodeFormat.loaded.filter { $0.name != name && $0.options.contains { $0.name == given } }
                    .map(\.name).sorted { (order.firstIndex(of: $0) ?? 99) < (order.firstIndex(of: $1) ?? 99) }
                let block = others.first.map { "; to give it to the formats that have it (\(others.joined(separator: ", "))), write it in each one's block, e.g. \"\($0)\": {\"\(given)\": …}" } ?? ""
                return "\"\(given)\" is not an option of \(name) (\(format.saver)); its options: "
                    + options.map { "\"\($0.name)\"" }.joined(separator: ", ") + block
            }
            if let value = values[given], !parameter.type.accepts(value) {
                return "\"\(given)\" for \(name) must be \(parameter.type.summary), not \(value)"
            }
        }
        if let target = EncodeTarget(Parameters(values).target) {
            return target.problem(format: name, saver: saverValues(values, format: name))
        }
        return nil
    }
}
