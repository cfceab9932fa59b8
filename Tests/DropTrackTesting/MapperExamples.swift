import DropTrackDispatch
import Foundation

/// The two worked examples of declarative mappers, as the README shows them: a receipt whose
/// content-state has exactly one of three nested objects, and a class schedule whose current and next
/// class follow the clock.
package enum MapperExamples {
    /// `ReceiptAttributes`: accepted → dispatched → delivered (terminal).
    package static let receiptJSON = #"""
        {
          "contentState": {
            "orderNumber": {"type": "string"},
            "status": {"type": "string", "values": ["preparing", "onTheWay", "delivered"]},
            "updatedAt": {"type": "date"},
            "preparing": {"type": "object", "optional": true, "fields": {"readyBy": {"type": "date", "optional": true}}},
            "onTheWay": {"type": "object", "optional": true,
                         "fields": {"courier": {"type": "string"}, "eta": {"type": "date", "optional": true}}},
            "delivered": {"type": "object", "optional": true, "fields": {"at": {"type": "date"}}}
          },
          "oneOf": [["preparing", "onTheWay", "delivered"]],
          "mapper": {
            "events": {
              "receipt.accepted": {"set": {"orderNumber": "orderNumber", "status": {"value": "accepted"},
                                           "readyBy": {"from": "readyBy", "optional": true}, "updatedAt": {"now": true}}},
              "receipt.dispatched": {"set": {"status": {"value": "dispatched"}, "courier": "courier",
                                             "eta": {"from": "etaEpochMillis", "optional": true}, "updatedAt": {"now": true}},
                                     "alert": {"title": "On its way", "body": "{courier} is bringing order {orderNumber}"}},
              "receipt.delivered": {"set": {"status": {"value": "delivered"}, "deliveredAt": {"now": true},
                                            "updatedAt": {"now": true}},
                                    "unset": ["eta"], "ends": true,
                                    "alert": {"title": "Delivered", "body": "Order {orderNumber} is at your door"}}
            },
            "contentState": {
              "orderNumber": "orderNumber",
              "status": {"enum": "status", "cases": {"accepted": "preparing", "dispatched": "onTheWay", "delivered": "delivered"}},
              "updatedAt": {"date": "updatedAt"},
              "preparing": {"object": {"readyBy": {"date": "readyBy"}}},
              "onTheWay": {"object": {"courier": "courier", "eta": {"date": "eta"}}},
              "delivered": {"object": {"at": {"date": "deliveredAt"}}}
            },
            "oneOf": {"by": "status", "cases": {"accepted": "preparing", "dispatched": "onTheWay", "delivered": "delivered"}}
          }
        }
        """#

    /// `ClassScheduleAttributes`: the class in progress and the next one, from a list of classes.
    package static let classesJSON = #"""
        {
          "contentState": {
            "gym": {"type": "string"},
            "current": {"type": "object", "optional": true,
                        "fields": {"name": {"type": "string"}, "room": {"type": "string"}, "startsAt": {"type": "date"}}},
            "next": {"type": "object", "optional": true,
                     "fields": {"name": {"type": "string"}, "room": {"type": "string"}, "startsAt": {"type": "date"}}}
          },
          "mapper": {
            "events": {
              "classes.set": {"set": {"gym": "gym", "classes": "classes"}},
              "classes.closed": {"ends": true}
            },
            "contentState": {
              "gym": "gym",
              "current": {"entry": "classes", "which": "current", "at": "at",
                          "object": {"name": "name", "room": "room", "startsAt": {"date": "at"}}},
              "next": {"entry": "classes", "which": "next", "at": "at",
                       "object": {"name": "name", "room": "room", "startsAt": {"date": "at"}}}
            }
          }
        }
        """#

    package static var receipt: AttributesSchema { schema(receiptJSON) }
    package static var classes: AttributesSchema { schema(classesJSON) }

    /// Both, registered as an app's `schemas` would hold them.
    package static var schemas: [String: AttributesSchema] {
        ["ReceiptAttributes": receipt, "ClassScheduleAttributes": classes]
    }

    package static func schema(_ json: String) -> AttributesSchema {
        // The examples are constants of this file: a decoding failure is a bug in them.
        try! JSONDecoder().decode(AttributesSchema.self, from: Data(json.utf8))
    }
}
