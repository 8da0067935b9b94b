import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An SNS topic's HTTP subscription is confirmed by fetching the URL it sends once
/// (`SubscriptionConfirmation`); until then AWS delivers nothing to the watch.
enum SubscriptionConfirmation {
    /// Fetches `url`: nil when SNS answered 200, else what went wrong.
    static func confirm(_ url: String) async -> String? {
        guard let address = URL(string: url), address.scheme == "https" || address.scheme == "http" else {
            return "The SubscribeURL \(url) is not an http(s) URL."
        }
        var request = URLRequest(url: address)
        request.timeoutInterval = 20
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            if status == 200 {
                Terminal.error("Confirmed the SNS subscription (\(address.host ?? url)).")
                return nil
            }
            return "Confirming the SNS subscription at \(url) answered HTTP \(status)."
        } catch {
            return "Cannot confirm the SNS subscription at \(url): \(error.localizedDescription)"
        }
    }
}
