-- The shop (issue 15, decision 022): administrators list assets and folders for sale; buyers fill a basket, check out
-- into an order, and a paid (Stripe) or approved (invoice) order grants them read + download through an access rule
-- per bought item (`shop_order_items.rule_id`), deleted again when the order is refunded.
-- Money is integer minor units (kopecks, cents) with an ISO 4217 currency code.
CREATE TABLE `shop_listings` (
	`entity_id` text PRIMARY KEY NOT NULL,
	`entity_type` text NOT NULL,
	`price` integer NOT NULL,
	`currency` text NOT NULL,
	`licence` text NOT NULL,
	`preview_key` text,
	`created_by` text NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL,
	CONSTRAINT "shop_listings_price_positive" CHECK("shop_listings"."price" > 0)
);
--> statement-breakpoint
CREATE INDEX `shop_listings_ctime_idx` ON `shop_listings` (`ctime`);--> statement-breakpoint
CREATE TABLE `shop_basket_items` (
	`user_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`user_id`, `entity_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `shop_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`buyer_id` text NOT NULL,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`total` integer NOT NULL,
	`email` text,
	`payment` text NOT NULL,
	`stripe_session_id` text,
	`stripe_payment_intent` text,
	`checkout_url` text,
	`decided_by` text,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL,
	`paid_at` integer,
	`refunded_at` integer,
	FOREIGN KEY (`buyer_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shop_orders_buyer_idx` ON `shop_orders` (`buyer_id`,`ctime`);--> statement-breakpoint
CREATE INDEX `shop_orders_status_idx` ON `shop_orders` (`status`,`ctime`);--> statement-breakpoint
CREATE INDEX `shop_orders_session_idx` ON `shop_orders` (`stripe_session_id`);--> statement-breakpoint
CREATE INDEX `shop_orders_intent_idx` ON `shop_orders` (`stripe_payment_intent`);--> statement-breakpoint
CREATE TABLE `shop_order_items` (
	`order_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`name` text NOT NULL,
	`price` integer NOT NULL,
	`currency` text NOT NULL,
	`licence` text NOT NULL,
	`rule_id` text,
	PRIMARY KEY(`order_id`, `entity_id`),
	FOREIGN KEY (`order_id`) REFERENCES `shop_orders`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shop_order_items_entity_idx` ON `shop_order_items` (`entity_id`);--> statement-breakpoint
CREATE TABLE `shop_webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`ctime` integer NOT NULL
);
