//! Enums of the service that requests and responses share.

crate::open_enum! {
    /// Status of a delivery order (`Deliveries.Common.DeliveryStatus`).
    pub enum DeliveryStatus {
        /// Not yet confirmed by the restaurant.
        Unconfirmed = "Unconfirmed",
        /// Confirmed, waiting for the kitchen.
        WaitCooking = "WaitCooking",
        /// Deprecated since iiko 9.0.6.
        ReadyForCooking = "ReadyForCooking",
        /// Cooking started.
        CookingStarted = "CookingStarted",
        /// Cooking completed.
        CookingCompleted = "CookingCompleted",
        /// Waiting for the courier.
        Waiting = "Waiting",
        /// On the way to the customer.
        OnWay = "OnWay",
        /// Delivered.
        Delivered = "Delivered",
        /// Closed.
        Closed = "Closed",
        /// Cancelled.
        Cancelled = "Cancelled",
    }
}

crate::open_enum! {
    /// Status of a table order (`OrderStatus`).
    pub enum OrderStatus {
        /// Open.
        New = "New",
        /// Bill printed.
        Bill = "Bill",
        /// Closed.
        Closed = "Closed",
        /// Deleted.
        Deleted = "Deleted",
    }
}

crate::open_enum! {
    /// Status of an order item (`OrderItemStatus`).
    pub enum OrderItemStatus {
        /// Added to the order.
        Added = "Added",
        /// Printed, not cooking yet.
        PrintedNotCooking = "PrintedNotCooking",
        /// Cooking started.
        CookingStarted = "CookingStarted",
        /// Cooking completed.
        CookingCompleted = "CookingCompleted",
        /// Served.
        Served = "Served",
    }
}
