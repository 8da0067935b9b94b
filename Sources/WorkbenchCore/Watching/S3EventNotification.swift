import Foundation

/// An S3 event notification as Ceph's RADOS Gateway, MinIO and AWS push it over HTTP: the
/// `Records[]` JSON, alone or inside an SNS envelope (`Type: Notification`, the records in its
/// `Message` string); or SNS asking its subscriber to confirm (`SubscriptionConfirmation`).
public enum S3EventNotification: Sendable, Equatable {
    /// One object event.
    public struct Record: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case created, removed }
        public let kind: Kind
        public let bucket: String
        /// The object's key, decoded (events carry it URL-encoded, a space as "+").
        public let key: String
        public let size: Int?
        public let etag: String?
        /// S3's ordering of events of one key (hexadecimal, compared after padding).
        public let sequencer: String?

        /// The object as an input names it.
        public var source: String { "s3://\(bucket)/\(key)" }
    }

    case records([Record])
    /// SNS asks for the subscription to be confirmed by fetching this URL.
    case subscriptionConfirmation(url: String)

    /// The body read as a notification, or why it is not one.
    public static func parse(_ body: Data) -> Result<S3EventNotification, Refusal> {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { // not JSON: said in the refusal
            return .failure(Refusal("the body is not a JSON object"))
        }
        if let type = object["Type"] as? String {
            switch type {
            case "SubscriptionConfirmation":
                guard let url = object["SubscribeURL"] as? String, url.hasPrefix("http") else {
                    return .failure(Refusal("an SNS SubscriptionConfirmation without a SubscribeURL"))
                }
                return .success(.subscriptionConfirmation(url: url))
            case "Notification":
                guard let message = object["Message"] as? String else { return .failure(Refusal("an SNS Notification without a Message")) }
                return parse(Data(message.utf8))
            case "UnsubscribeConfirmation":
                return .success(.records([]))
            default:
                return .failure(Refusal("an SNS message of type \(type)"))
            }
        }
        // An AWS test event ("s3:TestEvent") carries no records: answered, nothing to do.
        if object["Event"] as? String == "s3:TestEvent" { return .success(.records([])) }
        guard let records = object["Records"] as? [[String: Any]] else {
            return .failure(Refusal("no \"Records\" array: not an S3 event notification"))
        }
        var parsed: [Record] = []
        for (n, record) in records.enumerated() {
            guard let name = record["eventName"] as? String,
                  let s3 = record["s3"] as? [String: Any],
                  let bucket = (s3["bucket"] as? [String: Any])?["name"] as? String,
                  let object = s3["object"] as? [String: Any],
                  let rawKey = object["key"] as? String,
                  let key = rawKey.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                return .failure(Refusal("Records[\(n)] lacks eventName, s3.bucket.name or s3.object.key"))
            }
            // "ObjectCreated:Put" (AWS, MinIO) or "s3:ObjectCreated:Put" (some gateways).
            let event = name.hasPrefix("s3:") ? String(name.dropFirst(3)) : name
            let kind: Record.Kind
            if event.hasPrefix("ObjectCreated:") { kind = .created } else if event.hasPrefix("ObjectRemoved:") { kind = .removed } else { continue }
            let size = (object["size"] as? NSNumber)?.intValue
            let etag = (object["eTag"] as? String ?? object["etag"] as? String).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            parsed.append(Record(kind: kind, bucket: bucket, key: key, size: size, etag: etag?.isEmpty == true ? nil : etag,
                                 sequencer: object["sequencer"] as? String))
        }
        return .success(.records(parsed))
    }

    /// Why a body is not a notification, for the 400 answer.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
